import type { Registry } from "prom-client";
import type { AppContext } from "#services/context.ts";
import { replicaGauges } from "#services/orchestration/metrics.ts";
import type { ServiceName } from "../config.ts";
import type { Listener } from "../listener.ts";
import { createGateway, type GatewayOptions } from "./gateway.ts";
import { loadRouteFiles, loadRoutes } from "./loader.ts";
import { scimProblem } from "./scim-problems.ts";

const about: Record<
  Exclude<ServiceName, "dashboard">,
  { title: string; description: string; openai?: boolean }
> = {
  inference: {
    title: "Inference gateway",
    description: "OpenAI-compatible chat completions, with keys, limits, guardrails and prompts applied.",
    openai: true,
  },
  filtration: {
    title: "Filtration gateway",
    description: "Authentication, roles, API keys, policies, guardrails, knowledge base, prompts and audit.",
  },
  orchestration: {
    title: "Orchestration gateway",
    description: "Compute pools, deployments, the model registry, node inventory and logs.",
  },
};

export async function buildHttpGateway(
  app: AppContext,
  name: Exclude<ServiceName, "dashboard">,
  readinessChecks: GatewayOptions["readinessChecks"] = {},
  /** Registries of what runs beside it (the gRPC server beside orchestration). */
  registries: readonly Registry[] = [],
) {
  const own = await loadRouteFiles(name);
  const replicas = name === "orchestration" ? [replicaGauges(app)] : [];
  const routes = [...(await loadRoutes("_common")), ...own.http];
  // The inference runtime comes with the AppContext it was composed into (server/compose.ts).
  const inference = name === "inference" && app.inference ? [app.inference.metrics.registry] : [];
  return createGateway({
    name,
    app,
    routes,
    sockets: own.ws,
    title: about[name].title,
    description: about[name].description,
    errorStyle: about[name].openai ? "openai" : "platform",
    // SCIM clients read RFC 7644's error body, not the platform's envelope.
    ...(name === "filtration" ? { renderProblem: scimProblem } : {}),
    readinessChecks,
    metrics: () => [...registries, ...replicas, ...inference],
  });
}

export async function startHttpGateway(
  app: AppContext,
  name: Exclude<ServiceName, "dashboard">,
  readinessChecks: GatewayOptions["readinessChecks"] = {},
  registries: readonly Registry[] = [],
): Promise<Listener> {
  return listen(
    app,
    name,
    app.config.ports[name],
    await buildHttpGateway(app, name, readinessChecks, registries),
  );
}

export function listen(
  app: AppContext,
  name: ServiceName,
  port: number,
  gateway: Awaited<ReturnType<typeof buildHttpGateway>>,
): Listener {
  // Elysia's own listen, so WebSocket routes get their upgrade handler.
  gateway.app.listen({
    hostname: app.config.host,
    port,
    // No limit at Bun's level, whose 413 has an empty body: the gateway counts every body against its
    // route's limit and answers 413 in its own error shape (server/http/input.ts).
    maxRequestBodySize: Number.MAX_SAFE_INTEGER,
    // Elysia turns SO_REUSEPORT on: a second installation would then share a taken port silently and
    // split its traffic. A taken port is an error that names its variable (server/platform.ts).
    reusePort: false,
    // Long enough for slow clients; streaming routes lift it per request (server.timeout(req, 0)).
    idleTimeout: 120,
  });
  const server = gateway.app.server;
  if (!server) throw new Error(`${name}: the listener did not start`);
  gateway.bindServer(server);
  return {
    name,
    port: server.port as number,
    async stop(deadlineMs) {
      const graceful = server.stop(false);
      const timedOut = await Promise.race([
        graceful.then(() => false),
        Bun.sleep(deadlineMs).then(() => true),
      ]);
      if (timedOut) await server.stop(true);
    },
  };
}
