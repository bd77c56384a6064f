// What the cluster offers: each node's allocatable `nvidia.com/gpu`, grouped by its GPU product
// label, with the nodes' CPU cores and memory summed.
import type { ProviderAccess, ProviderResources } from "../provider.ts";
import { kubeApi } from "./client.ts";
import { gpuPricesOf, priceOf } from "./prices.ts";
import { gpuLabelOf } from "./replicas.ts";

/** "16Gi", "16384Mi", "17179869184", "16G" as MiB. */
export function mibOf(quantity: string | undefined): number {
  const m = /^(\d+(?:\.\d+)?)([KMGTE]i?)?$/.exec(quantity ?? "");
  if (!m) return 0;
  const unit: Record<string, number> = {
    Ki: 1 / 1024,
    Mi: 1,
    Gi: 1024,
    Ti: 1024 ** 2,
    K: 1e3 / 2 ** 20,
    M: 1e6 / 2 ** 20,
    G: 1e9 / 2 ** 20,
    T: 1e12 / 2 ** 20,
  };
  return Math.round(Number(m[1]) * (m[2] ? (unit[m[2]] ?? 0) : 1 / 2 ** 20));
}

export const coresOf = (quantity: string | undefined) =>
  quantity?.endsWith("m") ? Number(quantity.slice(0, -1)) / 1000 : Number(quantity ?? 0) || 0;

export async function kubernetesResources(access: ProviderAccess): Promise<ProviderResources> {
  const api = await kubeApi(access);
  const label = gpuLabelOf(access.settings);
  const prices = gpuPricesOf(access.settings);
  const nodes = (await api.core.listNode()).items;
  const gpus = new Map<string, { count: number; memory_mib: number | null }>();
  let cores = 0;
  let memory = 0;
  for (const node of nodes) {
    const allocatable = node.status?.allocatable ?? {};
    cores += coresOf(allocatable.cpu);
    memory += mibOf(allocatable.memory);
    const count = Number(allocatable["nvidia.com/gpu"] ?? 0);
    if (!count) continue;
    const labels = node.metadata?.labels ?? {};
    const name = labels[label] ?? "nvidia.com/gpu";
    const memoryMib = Number(labels["nvidia.com/gpu.memory"]) || null;
    const entry = gpus.get(name) ?? { count: 0, memory_mib: memoryMib };
    entry.count += count;
    gpus.set(name, entry);
  }
  return {
    provider: "kubernetes",
    cpu: { cores, model: null },
    memory: { total_mib: memory, free_mib: memory },
    gpus: [...gpus].map(([name, g]) => ({
      name,
      memory_mib: g.memory_mib,
      count: g.count,
      price_per_hour: priceOf(prices, name) ?? null,
    })),
    notes: [
      `GPUs are each node's allocatable nvidia.com/gpu, named by its ${label} label; allowed_gpu_types match those names.`,
      "Memory is allocatable memory (free_mib does not subtract what pods request).",
      "Prices come from settings.gpu_prices_per_hour (dollars per GPU and hour by product); Kubernetes has none.",
    ],
  };
}
