import type { Registry } from "prom-client";
import type { PlatformContext } from "#server/platform-context.ts";
import type { ServiceName } from "../config.ts";
import type { Listener } from "../listener.ts";
import { createGateway, type GatewayOptions } from "./gateway.ts";
import type { GatewayDescription } from "./gateway-description.ts";
import { loadRouteFiles, loadRoutes } from "./loader.ts";

/** A gateway's Elysia app, built from its description and its folder's route files. */
export async function buildHttpGateway(
  app: PlatformContext,
  gateway: GatewayDescription,
  readinessChecks: GatewayOptions["readinessChecks"] = {},
  /** Registries of what runs beside it (the gRPC server beside orchestration). */
  registries: readonly Registry[] = [],
) {
  const own = await loadRouteFiles(gateway.name);
  const shared = (await loadRoutes("_common")).filter(gateway.sharedRoutes ?? (() => true));
  const ownRegistries = gateway.registries?.(app) ?? [];
  return createGateway({
    name: gateway.name,
    app,
    routes: [...shared, ...own.http],
    sockets: own.ws,
    title: gateway.title,
    description: gateway.description,
    ...gateway.extras?.(app),
    readinessChecks,
    metrics: () => [...registries, ...ownRegistries],
  });
}

export async function startHttpGateway(
  app: PlatformContext,
  gateway: GatewayDescription,
  readinessChecks: GatewayOptions["readinessChecks"] = {},
  registries: readonly Registry[] = [],
): Promise<Listener> {
  return listen(
    app,
    gateway.name,
    app.config.ports[gateway.name],
    await buildHttpGateway(app, gateway, readinessChecks, registries),
  );
}

export function listen(
  app: PlatformContext,
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
    // split its traffic. A taken port is an error that names its variable (server/start/platform.ts).
    reusePort: false,
    // Long enough for slow clients; streaming routes lift it per request (server.timeout(req, 0)).
    idleTimeout: 120,
  });
  const server = gateway.app.server;
  if (!server) throw new Error(`${name}: the listener did not start`);
  gateway.bindServer(server);
  const boundPort = server.port;
  if (boundPort === undefined) throw new Error(`${name}: the listener has no TCP port`);
  return {
    name,
    port: boundPort,
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
