// grpc.health.v1 through @grpc/grpc-js, the reference client: an independent check of our server.

import { join } from "node:path";
import * as grpc from "@grpc/grpc-js";
import * as loader from "@grpc/proto-loader";

const definition = loader.loadSync(
  join(import.meta.dir, "..", "..", "proto", "grpc", "health", "v1", "health.proto"),
  {
    keepCase: true,
    enums: String,
  },
);
const proto = grpc.loadPackageDefinition(definition) as unknown as {
  grpc: { health: { v1: { Health: grpc.ServiceClientConstructor } } };
};

export function grpcHealthCheck(
  address: string,
  service = "",
  metadata = new grpc.Metadata(),
): Promise<string> {
  const client = new proto.grpc.health.v1.Health(
    address,
    grpc.credentials.createInsecure(),
  ) as unknown as grpc.Client & {
    Check: (
      request: { service: string },
      metadata: grpc.Metadata,
      options: grpc.CallOptions,
      callback: (error: grpc.ServiceError | null, reply: { status: string }) => void,
    ) => void;
  };
  return new Promise((resolve, reject) => {
    client.Check({ service }, metadata, { deadline: Date.now() + 5000 }, (error, reply) => {
      client.close();
      if (error) reject(error);
      else resolve(reply.status);
    });
  });
}
