// One Deployment (one pod) and one Service per replica, both named `llmp-<installation>-<replica
// id>`. Start resolves the pool's allowed_gpu_types against the nodes' GPU product labels first: no
// node offering any of them fails the replica naming them (nothing is created). Inspection reads
// the replica's pods: none yet or Pending -> starting; an image that cannot be pulled -> failed with
// the kubelet's reason; Running and Ready -> ready at the endpoint `settings.endpoint_mode` gives.

import type { V1Pod } from "@kubernetes/client-node";
import { propertyOf } from "#core/error-chain.ts";
import type { ProviderSettings } from "#core/options.ts";
import type { ProviderAccess, ReplicaHandle, ReplicaObservation, ReplicaSpec } from "../provider.ts";
import { containerFor, gpuMatches, type InstanceAccounts } from "../remote-accounts.ts";
import type { RemoteReplicas } from "../remote-provider.ts";
import { accessOf, isNotFound, type KubeApi, kubeApi, kubeFailure } from "./client.ts";
import { deploymentManifest, labelKeys, labelsOf, serviceManifest } from "./manifests.ts";
import { gpuPricesOf, replicaCost } from "./prices.ts";

export interface KubernetesReplicaState {
  port: number;
  /** Decided before anything was created (no node offers the allowed GPU types, over the ceiling). */
  failed?: string;
  /** From settings.gpu_prices_per_hour, when it prices the replica's GPUs. */
  costPerHour?: number | null;
}

export type KubernetesReplicas = RemoteReplicas<KubernetesReplicaState>;

export const gpuLabelOf = (settings: Readonly<ProviderSettings>) =>
  typeof settings.gpu_label === "string" && settings.gpu_label
    ? settings.gpu_label
    : "nvidia.com/gpu.product";

/** `llmp-<installation>-<replica id>`: 50 characters, a valid Deployment and Service name. */
export const objectNameOf = (installation: string, replicaId: string) => `llmp-${installation}-${replicaId}`;

/** The cluster's GPU products matching the allowed types (all of them without a restriction). */
async function candidateProducts(api: KubeApi, spec: ReplicaSpec): Promise<string[]> {
  const allowed = spec.placement.allowedGpuTypes;
  const label = gpuLabelOf(spec.access.settings);
  const nodes = (await api.core.listNode()).items;
  const products = new Set<string>();
  for (const node of nodes) {
    const product = node.metadata?.labels?.[label];
    if (product && (allowed.length === 0 || allowed.some((a) => gpuMatches(a, product))))
      products.add(product);
  }
  return [...products].sort();
}

/** Why the pool's cost ceiling refuses the replica, or its price per hour (null: not priced). */
function checkCost(
  spec: ReplicaSpec,
  products: string[],
): { refused: string } | { costPerHour: number | null } {
  const ceiling = spec.placement.maxCostPerHour;
  const cost = replicaCost(gpuPricesOf(spec.access.settings), products, spec.gpuPerReplica);
  if (cost && "perHour" in cost) {
    if (ceiling !== null && cost.perHour > ceiling)
      return {
        refused: `a replica may cost $${cost.perHour}/h (${spec.gpuPerReplica} × the dearest of ${products.join(", ")}), over the pool's max_cost_per_hour of $${ceiling}`,
      };
    return { costPerHour: cost.perHour };
  }
  if (ceiling !== null && cost && "unpriced" in cost)
    return {
      refused: `the pool's max_cost_per_hour cannot be checked: Kubernetes has no prices and settings.gpu_prices_per_hour has none for ${cost.unpriced}`,
    };
  return { costPerHour: null };
}

export async function startKubernetesReplica(
  { engines, accounts, states }: KubernetesReplicas,
  spec: ReplicaSpec,
): Promise<ReplicaHandle> {
  const api = await kubeApi(spec.access);
  const name = objectNameOf(accounts.installation, spec.replicaId);
  const container = containerFor(engines, spec, "kubernetes", name);
  accounts.remember(name, spec.access);
  const restricted = spec.gpuPerReplica > 0 && spec.placement.allowedGpuTypes.length > 0;
  const candidates = spec.gpuPerReplica > 0 ? await candidateProducts(api, spec) : [];
  const products = restricted ? candidates : undefined;
  const failWith = (failed: string) => {
    states.set(name, { port: container.port, failed });
    return { replicaId: spec.replicaId, providerInstanceId: name, endpoint: null };
  };
  if (products && products.length === 0) {
    return failWith(
      `no Kubernetes node offers any of the pool's allowed_gpu_types (${spec.placement.allowedGpuTypes.join(", ")}) in its ${gpuLabelOf(spec.access.settings)} label`,
    );
  }
  const cost = checkCost(spec, candidates);
  if ("refused" in cost) return failWith(cost.refused);
  const labels = labelsOf(accounts.installation, spec);
  const gpuLabel = gpuLabelOf(spec.access.settings);
  // A second start of the same replica (a crash before the database write) finds the first: 409.
  await api.apps
    .createNamespacedDeployment({
      namespace: api.namespace,
      body: deploymentManifest({ name, labels, container, gpuLabel, gpuProducts: products ?? [] }),
    })
    .catch(ignoreConflict);
  await api.core
    .createNamespacedService({
      namespace: api.namespace,
      body: serviceManifest({ name, labels, port: container.port }),
    })
    .catch(ignoreConflict);
  states.set(name, { port: container.port, costPerHour: cost.costPerHour });
  return { replicaId: spec.replicaId, providerInstanceId: name, endpoint: null };
}

function ignoreConflict(error: unknown) {
  if (propertyOf(error, "code") !== 409) throw new Error(kubeFailure(error));
}

export async function stopKubernetesReplica(
  { accounts, states }: KubernetesReplicas,
  handle: ReplicaHandle,
): Promise<void> {
  const name = handle.providerInstanceId;
  if (!states.get(name)?.failed) {
    const api = await kubeApi(await accessOf(accounts, handle));
    const gone = (error: unknown) => {
      if (!isNotFound(error)) throw new Error(kubeFailure(error));
    };
    // Foreground: the pods go before the Deployment does, so "stopped" means nothing runs.
    await api.apps
      .deleteNamespacedDeployment({ name, namespace: api.namespace, propagationPolicy: "Foreground" })
      .catch(gone);
    await api.core.deleteNamespacedService({ name, namespace: api.namespace }).catch(gone);
  }
  states.delete(name);
  accounts.forget(name);
}

const pullFailures = new Set(["ErrImagePull", "ImagePullBackOff", "InvalidImageName", "ErrImageNeverPull"]);

/** What the replica's pod says, as an observation (the endpoint filled by the caller). */
export function podObservation(pods: V1Pod[]): ReplicaObservation | "ready" {
  const pod = pods.find((p) => !p.metadata?.deletionTimestamp) ?? pods[0];
  if (!pod) return { phase: "starting" };
  for (const status of pod.status?.containerStatuses ?? []) {
    const waiting = status.state?.waiting;
    if (waiting?.reason && pullFailures.has(waiting.reason)) {
      return {
        phase: "failed",
        reason: `Kubernetes cannot pull the image ${status.image ?? ""}: ${waiting.reason}${waiting.message ? `: ${waiting.message}` : ""}`,
      };
    }
    if (waiting?.reason === "CrashLoopBackOff") {
      return {
        phase: "exited",
        reason: `the engine's container keeps crashing (CrashLoopBackOff): ${waiting.message ?? ""}`,
      };
    }
  }
  if (pod.status?.phase === "Failed")
    return { phase: "exited", reason: pod.status.message ?? "the pod failed" };
  if (pod.status?.phase !== "Running") {
    // A pod the scheduler cannot place says why (no node with the GPUs, a taint, a quota): kept, so
    // the start time-out's reason names it instead of a bare "not ready".
    const unscheduled = pod.status?.conditions?.find(
      (c) => c.type === "PodScheduled" && c.status === "False" && c.reason === "Unschedulable",
    );
    return unscheduled
      ? { phase: "starting", waitingFor: `Unschedulable: ${unscheduled.message ?? "no node fits"}` }
      : { phase: "starting" };
  }
  const ready = pod.status.conditions?.some((c) => c.type === "Ready" && c.status === "True");
  return ready ? "ready" : { phase: "starting" };
}

/**
 * The replica's OpenAI base URL. `service-proxy` (default with a kubeconfig): through the API
 * server's service proxy, `settings.proxy_url` when set (e.g. `kubectl proxy`, which adds the
 * credentials the gateway does not send); `cluster-dns` (default in the cluster): the Service's DNS
 * name, for a platform running in the same cluster.
 */
export function endpointOf(api: KubeApi, access: ProviderAccess, name: string, port: number): string {
  const mode = access.settings.endpoint_mode ?? (api.inCluster ? "cluster-dns" : "service-proxy");
  if (mode === "cluster-dns") return `http://${name}.${api.namespace}.svc.cluster.local:${port}/v1`;
  const base =
    typeof access.settings.proxy_url === "string" && access.settings.proxy_url
      ? access.settings.proxy_url.replace(/\/+$/, "")
      : api.server;
  return `${base}/api/v1/namespaces/${api.namespace}/services/${name}:${port}/proxy/v1`;
}

export async function inspectKubernetesReplica(
  { engines, accounts, states }: KubernetesReplicas,
  handle: ReplicaHandle,
  spec: ReplicaSpec,
): Promise<ReplicaObservation> {
  const name = handle.providerInstanceId;
  accounts.remember(name, spec.access);
  let state = states.get(name);
  if (state?.failed) return { phase: "failed", reason: state.failed };
  const api = await kubeApi(spec.access);
  if (!state) {
    // Adopted after a restart: the port comes from the engine, the price from the settings, the rest
    // from the cluster.
    const products = spec.gpuPerReplica > 0 ? await candidateProducts(api, spec) : [];
    const cost = checkCost({ ...spec, placement: { ...spec.placement, maxCostPerHour: null } }, products);
    state = {
      port: containerFor(engines, spec, "kubernetes", name).port,
      costPerHour: "costPerHour" in cost ? cost.costPerHour : null,
    };
    states.set(name, state);
  }
  try {
    await api.apps.readNamespacedDeployment({ name, namespace: api.namespace });
  } catch (error) {
    if (isNotFound(error)) return { phase: "gone" };
    throw new Error(kubeFailure(error));
  }
  const pods = (
    await api.core.listNamespacedPod({
      namespace: api.namespace,
      labelSelector: `${labelKeys.replica}=${spec.replicaId}`,
    })
  ).items;
  const seen = podObservation(pods);
  if (seen !== "ready") return seen;
  return {
    phase: "ready",
    endpoint: endpointOf(api, spec.access, name, state.port),
    costPerHour: state.costPerHour ?? null,
  };
}

export const listKubernetesInstances = (
  accounts: InstanceAccounts,
  inClusterAccess: () => ProviderAccess[],
) =>
  accounts.instances(async (access) => {
    const api = await kubeApi(access);
    const list = await api.apps.listNamespacedDeployment({
      namespace: api.namespace,
      labelSelector: `${labelKeys.installation}=${accounts.installation}`,
    });
    return list.items.flatMap((d) => {
      const name = d.metadata?.name;
      const replicaId = d.metadata?.labels?.[labelKeys.replica];
      // Only what this installation named for one of its replicas.
      return name && replicaId && name === objectNameOf(accounts.installation, replicaId)
        ? [{ replicaId, providerInstanceId: name }]
        : [];
    });
  }, inClusterAccess());
