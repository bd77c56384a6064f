// ComputePoolManagerService: the pool services of /deployment/createpool and friends, over gRPC.
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { ServiceImpl } from "@connectrpc/connect";
import type { ComputePoolManagerService } from "#proto/gen/llmplatform/orchestration/v1/pools_pb.ts";
import type { PlatformContext } from "#server/platform-context.ts";
import { createPool, deletePool, listPools, poolInventory } from "#services/orchestration/pools.ts";
import type { NodeView, PoolView } from "#services/orchestration/views.ts";
import { given, requestContextOf } from "./context.ts";

const poolMessage = (p: PoolView) => ({
  id: p.pool_id,
  name: p.pool_name,
  state: p.state,
  failureReason: p.failure_reason ?? "",
  ownerType: p.owner_type,
  ownerId: p.owner_id,
  provider: p.provider,
  allowedGpuTypes: p.allowed_gpu_types,
  ...(p.max_cost_per_hour === null ? {} : { maxCostPerHour: p.max_cost_per_hour }),
  isDedicated: p.is_dedicated,
  providerPoolId: p.provider_pool_id ?? "",
  schedulingPolicyJson: p.scheduling_policy_json,
  ...(p.size === null ? {} : { size: p.size }),
  nodeCount: p.node_count,
  readyNodeCount: p.ready_node_count,
  ...(p.estimated_cost_per_hour === null ? {} : { estimatedCostPerHour: p.estimated_cost_per_hour }),
  createdAt: timestampFromDate(new Date(p.created_at)),
});

const nodeMessage = (n: NodeView) => ({
  poolId: n.pool_id,
  provider: n.provider,
  providerInstanceId: n.provider_instance_id,
  gpuAllocated: n.gpu_allocated,
  vcpuAllocated: n.vcpu_allocated,
  ramGbAllocated: n.ram_gb_allocated,
  healthScore: n.health_score,
  state: n.state,
  exposeUrl: n.expose_url ?? "",
  lastHeartbeatAt: timestampFromDate(new Date(n.last_heartbeat_at)),
});

export function poolService(app: PlatformContext): ServiceImpl<typeof ComputePoolManagerService> {
  return {
    async registerPool(req, call) {
      const { node_token, ...pool } = await createPool(requestContextOf(app, call), {
        pool_name: given(req.poolName),
        owner_type: given(req.ownerType),
        owner_id: given(req.ownerId),
        provider: given(req.provider),
        allowed_gpu_types: req.allowedGpuTypes,
        max_cost_per_hour: req.maxCostPerHour,
        is_dedicated: req.isDedicated,
        provider_pool_id: given(req.providerPoolId),
        scheduling_policy_json: given(req.schedulingPolicyJson),
        size: req.size,
      });
      return { pool: poolMessage(pool), nodeToken: node_token };
    },
    async listPools(req, call) {
      const ctx = requestContextOf(app, call);
      // An empty owner means the caller's organization, the usual owner.
      const { pools } = await listPools(ctx, req.ownerId || (ctx.actor?.orgId ?? ""));
      return { pools: pools.map(poolMessage) };
    },
    async deletePool(req, call) {
      return { pool: poolMessage(await deletePool(requestContextOf(app, call), req.poolId)) };
    },
    async listPoolInventory(req, call) {
      const { nodes } = await poolInventory(requestContextOf(app, call), req.poolId);
      return { nodes: nodes.map(nodeMessage) };
    },
  };
}
