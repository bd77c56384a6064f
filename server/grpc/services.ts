// The orchestration gRPC services this listener registers, and the one access each method declares.
// The record types are keyed by the generated descriptors' methods, so a method without an access
// declaration does not compile.
import type { DescService } from "@bufbuild/protobuf";
import type { ConnectRouter } from "@connectrpc/connect";
import { ModelDeploymentService } from "#proto/gen/llmplatform/orchestration/v1/deployments_pb.ts";
import { ModelRegistryService } from "#proto/gen/llmplatform/orchestration/v1/models_pb.ts";
import { ComputePoolManagerService } from "#proto/gen/llmplatform/orchestration/v1/pools_pb.ts";
import type { PlatformContext } from "#server/platform-context.ts";
import type { Access } from "#services/permissions.ts";
import type { MethodAccess } from "./access-interceptor.ts";
import { deploymentService } from "./orchestration/deployments.ts";
import { modelService } from "./orchestration/models.ts";
import { poolService } from "./orchestration/pools.ts";

type AccessOf<S extends DescService> = Record<keyof S["method"], Access>;

const poolAccess: AccessOf<typeof ComputePoolManagerService> = {
  registerPool: "pools:write",
  listPools: "pools:read",
  deletePool: "pools:write",
  listPoolInventory: "pools:read",
};
const modelAccess: AccessOf<typeof ModelRegistryService> = {
  registerModel: "models:write",
  getModel: "models:read",
  listModels: "models:read",
  deleteModel: "models:write",
};
const deploymentAccess: AccessOf<typeof ModelDeploymentService> = {
  deployModel: "deployments:write",
  getDeployment: "deployments:read",
  listDeployments: "deployments:read",
  startDeployment: "deployments:write",
  deleteDeployment: "deployments:write",
  removeDeployment: "deployments:write",
};

function entries<S extends DescService>(service: S, access: AccessOf<S>): [string, Access][] {
  return service.methods.map((m) => [
    `${service.typeName}/${m.name}`,
    access[m.localName as keyof S["method"]],
  ]);
}

export const grpcMethodAccess: MethodAccess = new Map([
  ...entries(ComputePoolManagerService, poolAccess),
  ...entries(ModelRegistryService, modelAccess),
  ...entries(ModelDeploymentService, deploymentAccess),
]);

export function registerGrpcServices(router: ConnectRouter, app: PlatformContext): void {
  router.service(ComputePoolManagerService, poolService(app));
  router.service(ModelRegistryService, modelService(app));
  router.service(ModelDeploymentService, deploymentService(app));
}
