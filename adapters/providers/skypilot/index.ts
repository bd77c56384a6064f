// `skypilot`: replicas as SkyPilot clusters on cloud VMs through a SkyPilot API server (its REST API
// and asynchronous requests). Settings: `base_url` (the API server); credentials: `token` (a
// service-account token, sent as Bearer). Deployment configuration: `use_spot`, `cpus`.
import type { EngineId } from "../../../db/schema/deployments.ts";
import type { Engine } from "../../engines/engine.ts";
import type { ComputeProvider } from "../provider.ts";
import { type AccountDirectory, InstanceAccounts } from "../remote-accounts.ts";
import { SkyPilotClient } from "./client.ts";
import { readSkyPilotLogs } from "./logs.ts";
import {
  inspectSkyPilotReplica,
  listSkyPilotInstances,
  type SkyPilotReplicaState,
  startSkyPilotReplica,
  stopSkyPilotReplica,
} from "./replicas.ts";

export function createSkyPilotProvider(options: {
  engines: Partial<Record<EngineId, Engine>>;
  accounts: AccountDirectory;
}): ComputeProvider {
  const accounts = new InstanceAccounts("skypilot", options.accounts);
  const states = new Map<string, SkyPilotReplicaState>();
  return {
    id: "skypilot",
    summary:
      "Cloud VMs through a SkyPilot API server: one cluster per replica, the cheapest allowed accelerator",
    capabilities: {
      engines: ["vllm", "sglang", "tgi", "llama.cpp"],
      gpus: true,
      pricing: true,
      needsModelFile: false,
    },
    async provisionPool(pool) {
      // Checks the server and the token now: a status request goes through the request-id cycle.
      try {
        await new SkyPilotClient(pool.access).status([]);
        return { state: "Active" };
      } catch (error) {
        return { state: "Failed", reason: error instanceof Error ? error.message : String(error) };
      }
    },
    async deprovisionPool() {
      // Nothing is held per pool: each replica's cluster is taken down when it stops.
    },
    async listResources() {
      return {
        provider: "skypilot",
        cpu: null,
        memory: null,
        gpus: [],
        notes: [
          "SkyPilot chooses the cloud, region and instance for the pool's allowed_gpu_types (any of them, cheapest first); use_spot in a deployment's configuration asks for spot instances.",
          "Configure settings.base_url (the SkyPilot API server) and credentials.token.",
        ],
      };
    },
    startReplica: (spec) => startSkyPilotReplica(options.engines, accounts, states, spec),
    stopReplica: (handle) => stopSkyPilotReplica(accounts, states, handle),
    inspectReplica: (handle, spec) => inspectSkyPilotReplica(options.engines, accounts, states, handle, spec),
    readLogs: (handle, cursor) => readSkyPilotLogs(accounts, states, handle, cursor),
    listInstances: () => listSkyPilotInstances(accounts),
  };
}
