// A real gRPC client for the tests: @grpc/grpc-js with the schema read from proto/ by
// @grpc/proto-loader, as a third-party client would, rather than our generated code.
import { join } from "node:path";
import type { ConnectRouter, Interceptor } from "@connectrpc/connect";
import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";
import { accessInterceptor } from "#server/grpc/access-interceptor.ts";
import { registerUnimplemented } from "#server/grpc/orchestration-stubs.ts";
import { type GrpcServer, startGrpcServer } from "#server/grpc/server.ts";
import { grpcMethodAccess, registerGrpcServices } from "#server/grpc/services.ts";
import type { PlatformContext } from "#server/platform-context.ts";

export const ORCHESTRATION_SERVICE_NAMES = [
  "llmplatform.orchestration.v1.ComputePoolManagerService",
  "llmplatform.orchestration.v1.ModelDeploymentService",
  "llmplatform.orchestration.v1.ModelRegistryService",
];

const definitions = protoLoader.loadSync(
  [
    "grpc/health/v1/health.proto",
    "grpc/reflection/v1/reflection.proto",
    "grpc/reflection/v1alpha/reflection.proto",
    "llmplatform/orchestration/v1/pools.proto",
    "llmplatform/orchestration/v1/models.proto",
    "llmplatform/orchestration/v1/deployments.proto",
  ],
  {
    includeDirs: [join(import.meta.dir, "../../proto")],
    keepCase: true,
    enums: String,
    defaults: true,
    oneofs: true,
  },
);

type Method = protoLoader.MethodDefinition<object, object>;
type CallStream = grpc.ClientReadableStream<object> | grpc.ClientDuplexStream<object, object>;

function methodOf(service: string, name: string): Method {
  const definition = definitions[service];
  if (!definition || "format" in definition) throw new Error(`no service ${service} in proto/`);
  const method = definition[name];
  if (!method) throw new Error(`no method ${service}/${name} in proto/`);
  return method;
}

export function startTestServer(
  routes: (router: ConnectRouter) => void = registerUnimplemented,
  interceptors?: Interceptor[],
): Promise<GrpcServer> {
  return startGrpcServer({ host: "127.0.0.1", port: 0, routes, interceptors });
}

/** The platform's gRPC services on a free port behind its access interceptor (after `first`, if given). */
export function startPlatformGrpc(app: PlatformContext, first: Interceptor[] = []): Promise<GrpcServer> {
  return startTestServer(
    (router) => registerGrpcServices(router, app),
    [...first, accessInterceptor(app, grpcMethodAccess)],
  );
}

/** startPlatformGrpc and a client of it; `close` ends both. */
export async function connectPlatformGrpc(
  app: PlatformContext,
  first: Interceptor[] = [],
): Promise<{ client: TestClient; close(): Promise<void> }> {
  const server = await startPlatformGrpc(app, first);
  const client = new TestClient(server.port);
  return {
    client,
    async close() {
      client.raw.close();
      await server.close(1000);
    },
  };
}

/** Typed calls on a grpc-js client; responses are plain objects in the proto's snake_case. */
export class TestClient {
  readonly raw: grpc.Client;

  constructor(port: number) {
    this.raw = new grpc.Client(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
  }

  unary<Response>(
    service: string,
    name: string,
    request: object,
    metadata = new grpc.Metadata(),
  ): Promise<Response> {
    const method = methodOf(service, name);
    return new Promise((resolve, reject) => {
      this.raw.makeUnaryRequest(
        method.path,
        method.requestSerialize,
        method.responseDeserialize,
        request,
        metadata,
        { deadline: Date.now() + 10_000 },
        (error, response) => (error || !response ? reject(error) : resolve(response as Response)),
      );
    });
  }

  serverStream(service: string, name: string, request: object): grpc.ClientReadableStream<object> {
    const method = methodOf(service, name);
    return this.raw.makeServerStreamRequest(
      method.path,
      method.requestSerialize,
      method.responseDeserialize,
      request,
    );
  }

  bidi(service: string, name: string): grpc.ClientDuplexStream<object, object> {
    const method = methodOf(service, name);
    return this.raw.makeBidiStreamRequest(method.path, method.requestSerialize, method.responseDeserialize);
  }

  close(): void {
    this.raw.close();
  }
}

/** The grpc-js error of a call that was expected to fail. */
export async function failureOf(call: Promise<unknown>): Promise<grpc.ServiceError> {
  try {
    await call;
  } catch (error) {
    return error as grpc.ServiceError;
  }
  throw new Error("the call succeeded");
}

/** Resolves with the next message of a stream, or rejects if it ends or fails first. */
export function nextMessage<T>(stream: CallStream): Promise<T> {
  return new Promise((resolve, reject) => {
    const cleanUp = () => {
      stream.off("data", onData);
      stream.off("end", onEnd);
      stream.off("error", reject);
    };
    const onData = (message: object) => {
      cleanUp();
      resolve(message as T);
    };
    const onEnd = () => {
      cleanUp();
      reject(new Error("the stream ended"));
    };
    stream.once("data", onData);
    stream.once("end", onEnd);
    stream.once("error", reject);
  });
}

/** Resolves when a stream ends with OK; rejects with its error otherwise. */
export function endOf(stream: CallStream): Promise<void> {
  return new Promise((resolve, reject) => {
    stream.once("end", resolve);
    stream.once("error", reject);
    // Flowing mode, or "end" never fires while messages wait unread.
    stream.resume();
  });
}

/** Cancels a call from the client side; grpc-js reports that as an error event, expected here. */
export function cancel(stream: CallStream): void {
  stream.on("error", () => {});
  stream.cancel();
}
