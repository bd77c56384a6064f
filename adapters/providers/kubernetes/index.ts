// `kubernetes`: replicas as a Deployment and a Service each in an organization's cluster.
// Credentials: `kubeconfig` (the file's text; its current context), or none when the platform runs in
// the cluster (its service account). Settings: `namespace`, `endpoint_mode` (`service-proxy` or
// `cluster-dns`), `proxy_url`, `gpu_label`, `gpu_prices_per_hour` (README "Kubernetes").
import type { EngineId } from "../../../db/schema/deployments.ts";
import type { Engine } from "../../engines/engine.ts";
import type { ComputeProvider } from "../provider.ts";
import { type AccountDirectory, InstanceAccounts } from "../remote-accounts.ts";
import { inClusterAccess, kubeApi, kubeFailure } from "./client.ts";
import { readKubernetesLogs } from "./logs.ts";
import {
  inspectKubernetesReplica,
  type KubernetesReplicaState,
  listKubernetesInstances,
  startKubernetesReplica,
  stopKubernetesReplica,
} from "./replicas.ts";
import { kubernetesResources } from "./resources.ts";

export function createKubernetesProvider(options: {
  engines: Partial<Record<EngineId, Engine>>;
  accounts: AccountDirectory;
}): ComputeProvider {
  const accounts = new InstanceAccounts("kubernetes", options.accounts);
  const states = new Map<string, KubernetesReplicaState>();
  return {
    id: "kubernetes",
    summary: "A Kubernetes cluster: a Deployment and a Service per replica, GPUs as nvidia.com/gpu",
    capabilities: {
      engines: ["vllm", "sglang", "tgi", "llama.cpp"],
      gpus: true,
      // Only from the operator's settings.gpu_prices_per_hour (prices.ts).
      pricing: true,
      needsModelFile: false,
    },
    async provisionPool(pool) {
      // Checks the credentials and the namespace now: listing Deployments needs both.
      try {
        const api = kubeApi(pool.access);
        await api.apps.listNamespacedDeployment({ namespace: api.namespace, limit: 1 });
        return { state: "Active" };
      } catch (error) {
        return { state: "Failed", reason: kubeFailure(error) };
      }
    },
    async deprovisionPool() {
      // Nothing is held per pool: each replica's Deployment and Service go when it stops.
    },
    async listResources(access) {
      const chosen = access?.credentials?.kubeconfig ? access : inClusterAccess()[0];
      if (!chosen) {
        return {
          provider: "kubernetes",
          cpu: null,
          memory: null,
          gpus: [],
          notes: ["Configure credentials.kubeconfig (or run the platform in the cluster) to see its nodes."],
        };
      }
      return kubernetesResources(chosen);
    },
    startReplica: (spec) => startKubernetesReplica(options.engines, accounts, states, spec),
    stopReplica: (handle) => stopKubernetesReplica(accounts, states, handle),
    inspectReplica: (handle, spec) =>
      inspectKubernetesReplica(options.engines, accounts, states, handle, spec),
    readLogs: (handle, cursor) => readKubernetesLogs(accounts, handle, cursor),
    listInstances: () => listKubernetesInstances(accounts, inClusterAccess),
  };
}
