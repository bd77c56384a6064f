// `skypilot`: replicas as SkyPilot clusters on cloud VMs through a SkyPilot API server (its REST API
// and asynchronous requests). Settings: `base_url` (the API server); credentials: `token` (a
// service-account token, sent as Bearer). Deployment configuration: `use_spot`, `cpus`.
import type { ComputeProvider } from "../provider.ts";
import { createRemoteProvider, type RemoteProviderOptions, remoteReplicas } from "../remote-provider.ts";
import { SkyPilotClient } from "./client.ts";
import { readSkyPilotLogs } from "./logs.ts";
import {
  inspectSkyPilotReplica,
  listSkyPilotInstances,
  type SkyPilotReplicaState,
  startSkyPilotReplica,
  stopSkyPilotReplica,
} from "./replicas.ts";

export function createSkyPilotProvider(options: RemoteProviderOptions): ComputeProvider {
  const replicas = remoteReplicas<SkyPilotReplicaState>("skypilot", options);
  return createRemoteProvider({
    id: "skypilot",
    summary:
      "Cloud VMs through a SkyPilot API server: one cluster per replica, the cheapest allowed accelerator",
    async checkAccess(access) {
      // The server and the token: a status request goes through the request-id cycle.
      await new SkyPilotClient(access).status([]);
    },
    notes: [
      "SkyPilot chooses the cloud, region and instance for the pool's allowed_gpu_types (any of them, cheapest first); use_spot in a deployment's configuration asks for spot instances.",
      "Configure settings.base_url (the SkyPilot API server) and credentials.token.",
    ],
    startReplica: (spec) => startSkyPilotReplica(replicas, spec),
    stopReplica: (handle) => stopSkyPilotReplica(replicas, handle),
    inspectReplica: (handle, spec) => inspectSkyPilotReplica(replicas, handle, spec),
    readLogs: (handle, cursor) => readSkyPilotLogs(replicas, handle, cursor),
    listInstances: () => listSkyPilotInstances(replicas.accounts),
  });
}
