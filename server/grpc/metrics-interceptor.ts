// gRPC calls counted by method and status code, with their duration, under the names Go's
// grpc-prometheus made customary (grpc_server_handled_total{grpc_service, grpc_method, grpc_code}).
// It wraps the application's services, outside the access interceptor, so refusals are counted too;
// health and reflection are left out like the other interceptors.
import { Code, ConnectError, type Interceptor } from "@connectrpc/connect";
import { Registry } from "prom-client";
import { answerSeries } from "../http/metrics.ts";

export class GrpcMetrics {
  readonly registry = new Registry();
  private readonly series = answerSeries(
    this.registry,
    ["grpc_type", "grpc_service", "grpc_method", "grpc_code"],
    { name: "grpc_server_handled_total", help: "gRPC calls completed, by method and status code." },
    {
      name: "grpc_server_handling_seconds",
      help: "Time to answer a gRPC call (to the last message of a server stream).",
    },
  );

  interceptor(): Interceptor {
    return (next) => async (req) => {
      const started = performance.now();
      const labels = {
        grpc_type: req.method.methodKind,
        grpc_service: req.service.typeName,
        grpc_method: req.method.name,
      };
      const done = (code: Code | undefined) => {
        const all = { ...labels, grpc_code: code === undefined ? "OK" : Code[code] };
        this.series.count.inc(all);
        this.series.seconds.observe(all, (performance.now() - started) / 1000);
      };
      let response: Awaited<ReturnType<typeof next>>;
      try {
        response = await next(req);
      } catch (error) {
        done(ConnectError.from(error).code);
        throw error;
      }
      if (!response.stream) {
        done(undefined);
        return response;
      }
      return { ...response, message: counted(response.message, done) };
    };
  }
}

/** A server stream's messages, reporting its status when it ends. */
async function* counted<T>(messages: AsyncIterable<T>, done: (code: Code | undefined) => void) {
  try {
    yield* messages;
    done(undefined);
  } catch (error) {
    done(ConnectError.from(error).code);
    throw error;
  }
}
