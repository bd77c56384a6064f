// The orchestration gateway as the platform starts it (server/http/gateway-description.ts), with what
// runs beside it: the gRPC server (its metrics on this gateway's /metrics) and the reconciler.
import type { Config } from "#server/config.ts";
import { GrpcMetrics } from "#server/grpc/metrics-interceptor.ts";
import { startGrpc } from "#server/grpc/start.ts";
import type { Companions, GatewayDescription } from "#server/http/gateway-description.ts";
import { bound } from "#server/listener.ts";
import type { PlatformContext } from "#server/platform-context.ts";
import { replicaGauges } from "#services/orchestration/metrics.ts";
import { type Reconciler, startReconciler } from "#services/orchestration/reconciler.ts";

export const orchestrationGateway: GatewayDescription = {
  name: "orchestration",
  portVariable: "ORCHESTRATION_PORT",
  title: "Orchestration gateway",
  description: "Compute pools, deployments, the model registry, node inventory and logs.",
  registries: (app) => [replicaGauges(app)],
  companions: grpcAndReconciler,
};

function grpcAndReconciler(app: PlatformContext): Companions {
  const grpcMetrics = new GrpcMetrics();
  let reconciler: Reconciler | undefined;
  return {
    registries: [grpcMetrics.registry],
    async start(gatewayPort) {
      const grpc = await bound("GRPC_PORT", app.config.ports.grpc, () => startGrpc(app, grpcMetrics));
      reconciler = startReconciler(app, {
        heartbeatUrl: `${orchestrationUrl(app.config, gatewayPort)}/inventory/heartbeat`,
      });
      return [grpc];
    },
    async stop() {
      await reconciler?.stop();
    },
  };
}

/** Where this process's workers reach the orchestration gateway: ORCHESTRATION_URL, or the port it got. */
function orchestrationUrl(config: Config, boundPort: number): string {
  if (config.ports.orchestration !== 0) return config.orchestrationUrl.replace(/\/+$/, "");
  const host = config.host === "0.0.0.0" || config.host === "::" ? "127.0.0.1" : config.host;
  return `http://${host}:${boundPort}`;
}
