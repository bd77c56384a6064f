// ModelDeploymentService: the deployment services of /deployment/deploy and friends, over gRPC.
// Its DeleteDeployment is the specification's "terminate"; RemoveDeployment is HTTP's delete.
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { ServiceImpl } from "@connectrpc/connect";
import type { ModelDeploymentService } from "#proto/gen/llmplatform/orchestration/v1/deployments_pb.ts";
import type { PlatformContext } from "#server/platform-context.ts";
import {
  deleteDeployment,
  deploy,
  startDeployment,
  terminateDeployment,
} from "#services/orchestration/deployment-commands.ts";
import { getDeployment, listDeployments } from "#services/orchestration/deployment-queries.ts";
import type { DeploymentView } from "#services/orchestration/views.ts";
import { given, requestContextOf } from "./context.ts";

const deploymentMessage = (d: DeploymentView) => ({
  deploymentId: d.deployment_id,
  name: d.model_name,
  status: d.status,
  failureReason: d.failure_reason ?? "",
  modelVersion: d.model_version ?? "",
  poolId: d.pool_id,
  workloadType: d.workload_type,
  engine: d.engine,
  inferenceModel: d.inference_model ?? "",
  image: d.image,
  replicas: d.replicas,
  gpuPerReplica: d.gpu_per_replica,
  observedReplicas: d.observed_replicas.map((r) => ({
    index: r.index,
    state: r.state,
    endpoint: r.endpoint ?? "",
    providerInstanceId: r.provider_instance_id ?? "",
  })),
  transitions: d.transitions.map((t) => ({
    at: timestampFromDate(new Date(t.at)),
    from: t.from ?? "",
    to: t.to,
    reason: t.reason ?? "",
  })),
  ownerId: d.owner_id ?? "",
  orgId: d.org_id,
  estimatedCostPerHour: d.estimated_cost_per_hour ?? 0,
  ...(d.input_price_per_million === null ? {} : { inputPricePerMillion: d.input_price_per_million }),
  ...(d.output_price_per_million === null ? {} : { outputPricePerMillion: d.output_price_per_million }),
  createdAt: timestampFromDate(new Date(d.created_at)),
  updatedAt: timestampFromDate(new Date(d.updated_at)),
});

export function deploymentService(app: PlatformContext): ServiceImpl<typeof ModelDeploymentService> {
  return {
    async deployModel(req, call) {
      const result = await deploy(requestContextOf(app, call), {
        model_name: req.modelName,
        model_version: given(req.modelVersion),
        replicas: req.replicas,
        gpu_per_replica: req.gpuPerReplica,
        pool_id: req.poolId,
        workload_type: given(req.workloadType),
        engine: given(req.engine),
        configuration: req.configuration,
        owner_id: given(req.ownerId),
        org_id: given(req.orgId),
        inference_model: given(req.inferenceModel),
        image: req.image,
        input_price_per_million: req.inputPricePerMillion,
        output_price_per_million: req.outputPricePerMillion,
      });
      return { deploymentId: result.deployment_id, status: result.status };
    },
    async getDeployment(req, call) {
      return {
        deployment: deploymentMessage(await getDeployment(requestContextOf(app, call), req.deploymentId)),
      };
    },
    async listDeployments(req, call) {
      const { deployments } = await listDeployments(requestContextOf(app, call), {
        org_id: given(req.orgId),
      });
      return { deployments: deployments.map(deploymentMessage) };
    },
    async startDeployment(req, call) {
      return {
        deployment: deploymentMessage(await startDeployment(requestContextOf(app, call), req.deploymentId)),
      };
    },
    async deleteDeployment(req, call) {
      return {
        deployment: deploymentMessage(
          await terminateDeployment(requestContextOf(app, call), req.deploymentId),
        ),
      };
    },
    async removeDeployment(req, call) {
      await deleteDeployment(requestContextOf(app, call), req.deploymentId);
      return {};
    },
  };
}
