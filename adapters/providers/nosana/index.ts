// `nosana`: replicas as Nosana deployments on the GPU market matching the pool (Nosana's
// deployment manager API). Credentials: the organization's provider configuration for nosana
// (`credentials.api_key`; `settings.base_url` for another endpoint). Per CONTRACTS, the default
// provider once those credentials are configured.
import type { ComputeProvider } from "../provider.ts";
import { InstanceAccounts } from "../remote-accounts.ts";
import { createRemoteProvider, type RemoteProviderOptions } from "../remote-provider.ts";
import { NosanaClient } from "./client.ts";
import { readNosanaLogs } from "./logs.ts";
import {
  inspectNosanaReplica,
  listNosanaInstances,
  type NosanaIds,
  startNosanaReplica,
  stopNosanaReplica,
} from "./replicas.ts";

export function createNosanaProvider(options: RemoteProviderOptions): ComputeProvider {
  const accounts = new InstanceAccounts("nosana", options.accounts);
  const ids: NosanaIds = new Map();
  return createRemoteProvider({
    id: "nosana",
    summary: "Nosana GPU network: one Nosana deployment per replica, on the market of the pool's GPU type",
    async checkAccess(access) {
      await new NosanaClient(access).markets();
    },
    notes: [
      "GPU types are Nosana markets (GET /api/markets/); each organization's markets and prices depend on its account.",
      "Configure credentials.api_key for the nosana provider; a pool's allowed_gpu_types and max_cost_per_hour choose the market.",
    ],
    async offers(access) {
      // The markets as the asking organization's account sees them (prices are per job and hour).
      const markets = access?.credentials ? await new NosanaClient(access).markets().catch(() => []) : [];
      return {
        gpus: markets.map((m) => ({
          name: `${m.slug} (${m.gpu_types.join(", ")})`,
          memory_mib: null,
          count: 1,
          price_per_hour: m.usd_reward_per_hour,
        })),
      };
    },
    startReplica: (spec) => startNosanaReplica(options.engines, accounts, ids, spec),
    stopReplica: (handle) => stopNosanaReplica(accounts, ids, handle),
    inspectReplica: (handle, spec) => inspectNosanaReplica(accounts, ids, handle, spec),
    readLogs: (handle, cursor) => readNosanaLogs(accounts, ids, handle, cursor),
    listInstances: () => listNosanaInstances(accounts, ids),
  });
}
