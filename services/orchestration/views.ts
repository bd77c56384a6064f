// The shapes HTTP answers with (gRPC maps the same views to its messages): the specification's
// field names, snake_case, times as ISO 8601. A deployment's `configuration` is never shown: it may
// hold provider credentials.

import type { DeploymentState, DesiredState, NodeState, PoolState, ReplicaState } from "#core/domain.ts";
import type {
  DeploymentRow,
  DeploymentTransitionRow,
  ModelRow,
  NodeRow,
  PoolRow,
  ReplicaRow,
} from "#db/schema/index.ts";

export interface PoolView {
  pool_id: string;
  pool_name: string;
  state: PoolState;
  failure_reason: string | null;
  owner_type: string;
  owner_id: string;
  provider: string;
  allowed_gpu_types: string[];
  max_cost_per_hour: number | null;
  is_dedicated: boolean;
  provider_pool_id: string | null;
  scheduling_policy_json: string;
  size: number | null;
  node_count: number;
  ready_node_count: number;
  estimated_cost_per_hour: number | null;
  created_at: string;
  updated_at: string;
}

export interface PoolFigures {
  nodes: number;
  ready: number;
  costPerHour: number | null;
}

export const poolView = (
  pool: PoolRow,
  counts: PoolFigures = { nodes: 0, ready: 0, costPerHour: null },
): PoolView => ({
  pool_id: pool.id,
  pool_name: pool.name,
  state: pool.state,
  failure_reason: pool.failureReason,
  owner_type: pool.ownerType,
  owner_id: pool.ownerId,
  provider: pool.provider,
  allowed_gpu_types: pool.allowedGpuTypes,
  max_cost_per_hour: pool.maxCostPerHour,
  is_dedicated: pool.isDedicated,
  provider_pool_id: pool.providerPoolId,
  scheduling_policy_json: JSON.stringify(pool.schedulingPolicy),
  size: pool.size,
  node_count: counts.nodes,
  ready_node_count: counts.ready,
  estimated_cost_per_hour: counts.costPerHour,
  created_at: pool.createdAt.toISOString(),
  updated_at: pool.updatedAt.toISOString(),
});

export interface NodeView {
  node_id: string;
  pool_id: string;
  provider: string;
  provider_instance_id: string;
  gpu_allocated: number;
  vcpu_allocated: number;
  ram_gb_allocated: number;
  health_score: number;
  state: NodeState;
  expose_url: string | null;
  last_heartbeat_at: string;
  created_at: string;
}

export const nodeView = (node: NodeRow): NodeView => ({
  node_id: node.id,
  pool_id: node.poolId,
  provider: node.provider,
  provider_instance_id: node.providerInstanceId,
  gpu_allocated: node.gpuAllocated,
  vcpu_allocated: node.vcpuAllocated,
  ram_gb_allocated: node.ramGbAllocated,
  health_score: node.healthScore,
  state: node.state,
  expose_url: node.exposeUrl,
  last_heartbeat_at: node.lastHeartbeatAt.toISOString(),
  created_at: node.createdAt.toISOString(),
});

export interface ModelView {
  model_name: string;
  model_version: string;
  backend: string;
  artifact_uri: string | null;
  shared: boolean;
  config_json: ModelRow["config"];
  created_at: string;
}

export const modelView = (model: ModelRow): ModelView => ({
  model_name: model.name,
  model_version: model.version,
  backend: model.backend,
  artifact_uri: model.artifactUri,
  shared: model.shared,
  config_json: model.config,
  created_at: model.createdAt.toISOString(),
});

export interface ReplicaView {
  index: number;
  state: ReplicaState;
  endpoint: string | null;
  provider_instance_id: string | null;
  restarts: number;
  last_error: string | null;
  started_at: string | null;
  updated_at: string;
}

export interface TransitionView {
  at: string;
  from: DeploymentState | null;
  to: DeploymentState;
  reason: string | null;
  /** Autoscaling decisions only: the wanted replica count before and after (equal: a bound stopped it). */
  replicas?: { from: number; to: number } | undefined;
}

export interface DeploymentView {
  deployment_id: string;
  model_name: string;
  status: DeploymentState;
  desired_state: DesiredState;
  failure_reason: string | null;
  model_version: string | null;
  pool_id: string;
  pool_name: string | null;
  provider: string | null;
  engine: string;
  workload_type: string;
  inference_model: string | null;
  image: string;
  replicas: number;
  /** RUNNING with no replica wanted: its autoscaling policy scaled it to zero; a request starts one. */
  scaled_to_zero: boolean;
  gpu_per_replica: number;
  observed_replicas: ReplicaView[];
  /** Base URLs (OpenAI `…/v1`) of the replicas that serve now. */
  endpoints: string[];
  transitions: TransitionView[];
  owner_id: string | null;
  org_id: string;
  estimated_cost_per_hour: number | null;
  /** Per million tokens, in the operator's currency; null: not priced per token. */
  input_price_per_million: number | null;
  output_price_per_million: number | null;
  /** Per million prompt tokens the engine reused; null: the input price. */
  cached_input_price_per_million: number | null;
  created_at: string;
  updated_at: string;
}

export function deploymentView(
  d: DeploymentRow,
  pool: Pick<PoolRow, "name" | "provider"> | undefined,
  replicaRows: ReplicaRow[],
  transitionRows: DeploymentTransitionRow[],
): DeploymentView {
  const observed = [...replicaRows].sort((a, b) => a.index - b.index);
  return {
    deployment_id: d.id,
    model_name: d.name,
    status: d.status,
    desired_state: d.desiredState,
    failure_reason: d.failureReason,
    model_version: d.modelVersion,
    pool_id: d.poolId,
    pool_name: pool?.name ?? null,
    provider: pool?.provider ?? null,
    engine: d.engine,
    workload_type: d.workloadType,
    inference_model: d.inferenceModel,
    image: d.image,
    replicas: d.replicas,
    scaled_to_zero: d.status === "RUNNING" && d.replicas === 0,
    gpu_per_replica: d.gpuPerReplica,
    observed_replicas: observed.map((r) => ({
      index: r.index,
      state: r.state,
      endpoint: r.endpoint,
      provider_instance_id: r.providerInstanceId,
      restarts: r.restarts,
      last_error: r.lastError,
      started_at: r.startedAt?.toISOString() ?? null,
      updated_at: r.updatedAt.toISOString(),
    })),
    endpoints: observed.flatMap((r) => (r.state === "READY" && r.endpoint ? [r.endpoint] : [])),
    // The latest 200: an autoscaled deployment records a transition per decision.
    transitions: [...transitionRows]
      .sort((a, b) => a.at.getTime() - b.at.getTime())
      .slice(-200)
      .map((t) => ({
        at: t.at.toISOString(),
        from: t.fromState,
        to: t.toState,
        reason: t.reason,
        ...(t.fromReplicas !== null && t.toReplicas !== null
          ? { replicas: { from: t.fromReplicas, to: t.toReplicas } }
          : {}),
      })),
    owner_id: d.ownerId,
    org_id: d.orgId,
    estimated_cost_per_hour: d.estimatedCostPerHour,
    input_price_per_million: d.inputPricePerMillion,
    output_price_per_million: d.outputPricePerMillion,
    cached_input_price_per_million: d.cachedInputPricePerMillion,
    created_at: d.createdAt.toISOString(),
    updated_at: d.updatedAt.toISOString(),
  };
}
