// `akash`: replicas as Akash deployments through the Console API's managed wallet: an SDL per
// replica, the cheapest bid under the pool's ceiling, a lease, the lease's service URI as the
// endpoint. Credentials: the organization's provider configuration for akash
// (`credentials.api_key`; settings `base_url`, `akt_price_usd`, `deposit_usd`, `bid_wait_s`).
import type { EngineId } from "../../../db/schema/deployments.ts";
import type { Engine } from "../../engines/engine.ts";
import type { ComputeProvider } from "../provider.ts";
import { type AccountDirectory, InstanceAccounts } from "../remote-accounts.ts";
import { readAkashLogs } from "./logs.ts";
import {
  type AkashReplicaState,
  inspectAkashReplica,
  startAkashReplica,
  stopAkashReplica,
} from "./replicas.ts";

export function createAkashProvider(options: {
  engines: Partial<Record<EngineId, Engine>>;
  accounts: AccountDirectory;
}): ComputeProvider {
  const accounts = new InstanceAccounts("akash", options.accounts);
  const states = new Map<string, AkashReplicaState>();
  return {
    id: "akash",
    summary:
      "Akash network: one Akash deployment and lease per replica, the cheapest bid under the pool's ceiling",
    capabilities: {
      engines: ["vllm", "sglang", "tgi", "llama.cpp"],
      gpus: true,
      pricing: true,
      needsModelFile: false,
    },
    async provisionPool(pool) {
      return pool.access.credentials?.api_key
        ? { state: "Active" }
        : { state: "Failed", reason: "the akash provider configuration has no api_key credential" };
    },
    async deprovisionPool() {
      // Nothing is held per pool: each replica's deployment is closed when it stops.
    },
    async listResources() {
      return {
        provider: "akash",
        cpu: null,
        memory: null,
        gpus: [],
        notes: [
          "Akash prices come as bids once a deployment is created; the pool's allowed_gpu_types go into the SDL and its max_cost_per_hour filters the bids.",
          "Configure credentials.api_key (Akash Console API key) and, to price uakt bids, settings.akt_price_usd.",
        ],
      };
    },
    startReplica: (spec) => startAkashReplica(options.engines, accounts, states, spec),
    stopReplica: (handle) => stopAkashReplica(accounts, states, handle),
    inspectReplica: (handle, spec) => inspectAkashReplica(accounts, states, handle, spec),
    readLogs: async (handle, cursor) => readAkashLogs(states, handle, cursor),
  };
}
