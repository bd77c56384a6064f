// The control plane's RPC server: gRPC, gRPC-Web and Connect on one cleartext port, with health
// and reflection always on. What the services do is the caller's business (`routes`).
import type { DescService } from "@bufbuild/protobuf";
import { Code, ConnectError, type ConnectRouter, type Interceptor } from "@connectrpc/connect";
import { connectNodeAdapter } from "@connectrpc/connect-node";
import { Health } from "#proto/gen/grpc/health/v1/health_pb.ts";
import { listenCleartext } from "./cleartext-listener";
import { createHealthBoard, type HealthBoard, registerHealth, ServingStatus } from "./health";
import { registerReflection, ServerReflectionV1, ServerReflectionV1alpha } from "./reflection";

export interface GrpcServerOptions {
  host: string;
  /** 0 picks a free port; the running server says which. */
  port: number;
  /** Registers the application's services. */
  routes: (router: ConnectRouter) => void;
  /**
   * Wrap the services that `routes` registers (authentication, permissions, logging). Health and
   * reflection stay outside them: probes and grpcurl carry no credentials.
   */
  interceptors?: Interceptor[];
}

export interface GrpcServer {
  readonly port: number;
  /** Flip a service (or "" for the whole server) to NOT_SERVING when a dependency is lost. */
  readonly health: HealthBoard;
  /**
   * Reports NOT_SERVING, stops accepting, lets calls in flight finish for up to `deadlineMs`, then
   * cancels what is left (UNAVAILABLE) and, 100 ms later, closes every connection.
   */
  close(deadlineMs?: number): Promise<void>;
}

const DEFAULT_CLOSE_DEADLINE_MS = 10_000;
/** After the deadline, how long cancelled calls get to send their status. */
const CANCELLATION_GRACE_MS = 100;
/** gRPC's customary limit; a larger request is a mistake or an attack on a control plane. */
const MAX_REQUEST_MESSAGE_BYTES = 4 * 1024 * 1024;

export async function startGrpcServer(options: GrpcServerOptions): Promise<GrpcServer> {
  const health = createHealthBoard();
  const shutdown = new AbortController();

  const handler = connectNodeAdapter({
    shutdownSignal: shutdown.signal,
    readMaxBytes: MAX_REQUEST_MESSAGE_BYTES,
    routes(router) {
      options.routes(withInterceptors(router, options.interceptors ?? []));
      const services = [...servicesOf(router), Health, ServerReflectionV1, ServerReflectionV1alpha];
      for (const service of services) health.setStatus(service.typeName, ServingStatus.SERVING);
      registerHealth(router, health);
      registerReflection(router, services);
    },
  });
  const listener = await listenCleartext(options.host, options.port, handler);

  let closing: Promise<void> | undefined;
  const close = async (deadlineMs: number) => {
    health.shutDown();
    listener.stopAccepting();
    if (!(await settlesWithin(listener.closed, deadlineMs))) {
      // Handlers still running see their signal abort and answer UNAVAILABLE; give that answer
      // a moment to reach the client, or it would only see its stream reset.
      shutdown.abort(new ConnectError("the server is shutting down", Code.Unavailable));
      await settlesWithin(listener.closed, CANCELLATION_GRACE_MS);
    }
    await listener.destroyAll();
  };

  return {
    port: listener.port,
    health,
    close(deadlineMs = DEFAULT_CLOSE_DEADLINE_MS) {
      closing ??= close(deadlineMs);
      return closing;
    },
  };
}

function servicesOf(router: ConnectRouter): DescService[] {
  return [...new Set(router.handlers.map((handler) => handler.service))];
}

/** A router whose every registration carries the given interceptors (outermost first). */
function withInterceptors(router: ConnectRouter, interceptors: readonly Interceptor[]): ConnectRouter {
  if (interceptors.length === 0) return router;
  const scoped: ConnectRouter = {
    get handlers() {
      return router.handlers;
    },
    service(service, implementation, handlerOptions) {
      const own = handlerOptions?.interceptors ?? [];
      router.service(service, implementation, { ...handlerOptions, interceptors: [...interceptors, ...own] });
      return this;
    },
    rpc(method, implementation, handlerOptions) {
      const own = handlerOptions?.interceptors ?? [];
      router.rpc(method, implementation, { ...handlerOptions, interceptors: [...interceptors, ...own] });
      return this;
    },
  };
  return scoped;
}

/** Whether the promise settled within `ms`. */
async function settlesWithin(promise: Promise<void>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([promise.then(() => true), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
