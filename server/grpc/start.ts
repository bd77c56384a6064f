// The gRPC control plane listener (gRPC, gRPC-Web and Connect on one port).

import type { PlatformContext } from "#server/platform-context.ts";
import type { Listener } from "../listener.ts";
import { accessInterceptor } from "./access-interceptor.ts";
import type { GrpcMetrics } from "./metrics-interceptor.ts";
import { startGrpcServer } from "./server.ts";
import { grpcMethodAccess, registerGrpcServices } from "./services.ts";

export async function startGrpc(app: PlatformContext, metrics: GrpcMetrics): Promise<Listener> {
  const server = await startGrpcServer({
    host: app.config.host,
    port: app.config.ports.grpc,
    routes: (router) => registerGrpcServices(router, app),
    interceptors: [metrics.interceptor(), accessInterceptor(app, grpcMethodAccess)],
  });
  return { name: "grpc", port: server.port, stop: (deadlineMs) => server.close(deadlineMs) };
}
