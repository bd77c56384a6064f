// `kubernetes`: replicas as a Deployment and a Service each in an organization's cluster.
// Credentials: `kubeconfig` (the file's text; its current context), or none when the platform runs in
// the cluster (its service account). Settings: `namespace`, `endpoint_mode` (`service-proxy` or
// `cluster-dns`), `proxy_url`, `gpu_label`, `gpu_prices_per_hour` (README "Kubernetes"); prices come
// only from the operator's `gpu_prices_per_hour` (prices.ts).
import type { ComputeProvider } from "../provider.ts";
import { createRemoteProvider, type RemoteProviderOptions, remoteReplicas } from "../remote-provider.ts";
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

export function createKubernetesProvider(options: RemoteProviderOptions): ComputeProvider {
  const replicas = remoteReplicas<KubernetesReplicaState>("kubernetes", options);
  return createRemoteProvider({
    id: "kubernetes",
    summary: "A Kubernetes cluster: a Deployment and a Service per replica, GPUs as nvidia.com/gpu",
    async checkAccess(access) {
      // The credentials and the namespace: listing Deployments needs both.
      const api = await kubeApi(access);
      await api.apps.listNamespacedDeployment({ namespace: api.namespace, limit: 1 });
    },
    describeFailure: kubeFailure,
    notes: ["Configure credentials.kubeconfig (or run the platform in the cluster) to see its nodes."],
    async offers(access) {
      // The nodes of the asking organization's cluster, or of the cluster the platform runs in.
      const chosen = access?.credentials?.kubeconfig ? access : inClusterAccess()[0];
      return chosen ? kubernetesResources(chosen) : undefined;
    },
    startReplica: (spec) => startKubernetesReplica(replicas, spec),
    stopReplica: (handle) => stopKubernetesReplica(replicas, handle),
    inspectReplica: (handle, spec) => inspectKubernetesReplica(replicas, handle, spec),
    readLogs: (handle, cursor) => readKubernetesLogs(replicas.accounts, handle, cursor),
    listInstances: () => listKubernetesInstances(replicas.accounts, inClusterAccess),
  });
}
