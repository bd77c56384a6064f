// `akash`: replicas as Akash deployments through the Console API's managed wallet: an SDL per
// replica, the cheapest bid under the pool's ceiling, a lease, the lease's service URI as the
// endpoint. Credentials: the organization's provider configuration for akash
// (`credentials.api_key`; settings `base_url`, `akt_price_usd`, `deposit_usd`, `bid_wait_s`).
import type { ComputeProvider } from "../provider.ts";
import { createRemoteProvider, type RemoteProviderOptions, remoteReplicas } from "../remote-provider.ts";
import { AkashClient } from "./client.ts";
import { readAkashLogs } from "./logs.ts";
import {
  type AkashReplicaState,
  inspectAkashReplica,
  startAkashReplica,
  stopAkashReplica,
} from "./replicas.ts";

export function createAkashProvider(options: RemoteProviderOptions): ComputeProvider {
  const replicas = remoteReplicas<AkashReplicaState>("akash", options);
  return createRemoteProvider({
    id: "akash",
    summary:
      "Akash network: one Akash deployment and lease per replica, the cheapest bid under the pool's ceiling",
    async checkAccess(access) {
      // Only that a key is there (the client refuses one without): the Console API has no call
      // that checks a key without creating something.
      new AkashClient(access);
    },
    notes: [
      "Akash prices come as bids once a deployment is created; the pool's allowed_gpu_types go into the SDL and its max_cost_per_hour filters the bids.",
      "Configure credentials.api_key (Akash Console API key) and, to price uakt bids, settings.akt_price_usd.",
    ],
    startReplica: (spec) => startAkashReplica(replicas, spec),
    stopReplica: (handle) => stopAkashReplica(replicas, handle),
    inspectReplica: (handle, spec) => inspectAkashReplica(replicas, handle, spec),
    readLogs: async (handle, cursor) => readAkashLogs(replicas, handle, cursor),
  });
}
