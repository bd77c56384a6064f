// Kubernetes has no prices of its own. An operator who wants `max_cost_per_hour` enforced and costs
// shown gives one: `settings.gpu_prices_per_hour`, US dollars per GPU and hour by GPU product (the
// names of the nodes' GPU label, matched like allowed_gpu_types), e.g. {"NVIDIA-L4": 0.8}.
import type { ProviderSettings } from "#core/options.ts";
import { gpuMatches } from "../remote-accounts.ts";

export type GpuPrices = ReadonlyMap<string, number>;

export function gpuPricesOf(settings: Readonly<ProviderSettings>): GpuPrices {
  const raw = settings.gpu_prices_per_hour;
  const prices = new Map<string, number>();
  if (raw && typeof raw === "object" && !Array.isArray(raw)) {
    for (const [product, price] of Object.entries(raw)) {
      if (typeof price === "number" && Number.isFinite(price) && price >= 0) prices.set(product, price);
    }
  }
  return prices;
}

export const priceOf = (prices: GpuPrices, product: string): number | undefined => {
  for (const [name, price] of prices) if (gpuMatches(name, product)) return price;
  return undefined;
};

/**
 * What one replica may cost an hour: its GPUs at the dearest of the products it may land on (the
 * scheduler picks the node, so the ceiling is checked against the worst case). `unpriced` names a
 * product without a price.
 */
export function replicaCost(
  prices: GpuPrices,
  products: readonly string[],
  gpus: number,
): { perHour: number } | { unpriced: string } | undefined {
  if (gpus === 0 || products.length === 0) return undefined;
  let dearest = 0;
  for (const product of products) {
    const price = priceOf(prices, product);
    if (price === undefined) return { unpriced: product };
    dearest = Math.max(dearest, price);
  }
  return { perHour: Math.round(dearest * gpus * 10_000) / 10_000 };
}
