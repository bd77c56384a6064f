// `nosana`: replicas as Nosana deployments on the GPU market matching the pool (Nosana's
// deployment manager API). Credentials: the organization's provider configuration for nosana
// (`credentials.api_key`; `settings.base_url` for another endpoint). Per CONTRACTS, the default
// provider once those credentials are configured.
import type { ComputeProvider } from "../provider.ts";
import { createRemoteProvider, type RemoteProviderOptions, remoteReplicas } from "../remote-provider.ts";
import { NosanaClient } from "./client.ts";
import { readNosanaLogs } from "./logs.ts";
import {
  inspectNosanaReplica,
  listNosanaInstances,
  startNosanaReplica,
  stopNosanaReplica,
} from "./replicas.ts";

export function createNosanaProvider(options: RemoteProviderOptions): ComputeProvider {
  const replicas = remoteReplicas<string>("nosana", options);
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
    startReplica: (spec) => startNosanaReplica(replicas, spec),
    stopReplica: (handle) => stopNosanaReplica(replicas, handle),
    inspectReplica: (handle, spec) => inspectNosanaReplica(replicas, handle, spec),
    readLogs: (handle, cursor) => readNosanaLogs(replicas, handle, cursor),
    listInstances: () => listNosanaInstances(replicas),
  });
}
