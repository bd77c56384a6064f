// Every orchestration method answering UNIMPLEMENTED: the schema without the services. The gRPC
// plumbing tests (health, reflection, protocols, shutdown) serve this, so they need no database;
// the running server registers the real services (services.ts).
import type { DescMethod, DescMethodUnary, DescService } from "@bufbuild/protobuf";
import { Code, ConnectError, type ConnectRouter } from "@connectrpc/connect";
import { ModelDeploymentService } from "#proto/gen/llmplatform/orchestration/v1/deployments_pb.ts";
import { ModelRegistryService } from "#proto/gen/llmplatform/orchestration/v1/models_pb.ts";
import { ComputePoolManagerService } from "#proto/gen/llmplatform/orchestration/v1/pools_pb.ts";

export const ORCHESTRATION_SERVICES: readonly DescService[] = [
  ComputePoolManagerService,
  ModelRegistryService,
  ModelDeploymentService,
];

function unavailable(): never {
  throw new ConnectError("this method is unavailable in this build", Code.Unimplemented);
}

const isUnary = (method: DescMethod): method is DescMethodUnary => method.methodKind === "unary";

export function registerUnimplemented(router: ConnectRouter): void {
  for (const service of ORCHESTRATION_SERVICES) {
    for (const method of service.methods) {
      // Every orchestration method is unary; a streaming one would need its own stub shape.
      if (!isUnary(method)) throw new Error(`${service.typeName}.${method.name} is not unary`);
      router.rpc(method, unavailable);
    }
  }
}
