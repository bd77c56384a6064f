// Placement on Nosana: a GPU type is a market. The pool's allowed_gpu_types choose the markets, its
// max_cost_per_hour the ones cheap enough; the cheapest left wins. A deployment may name one with
// `configuration.market` (slug or address), still held to the pool's constraints.

import type { ReplicaSpec } from "../provider.ts";
import { gpuAllowed } from "../remote-accounts.ts";
import type { NosanaMarket } from "./client.ts";

export function chooseMarket(markets: NosanaMarket[], spec: ReplicaSpec): NosanaMarket {
  const { allowedGpuTypes, maxCostPerHour } = spec.placement;
  const named = typeof spec.configuration.market === "string" ? spec.configuration.market : undefined;
  let candidates = named ? markets.filter((m) => m.slug === named || m.address === named) : markets;
  if (named && candidates.length === 0) throw new Error(`no Nosana market named ${named}`);
  candidates = candidates.filter((m) => gpuAllowed(allowedGpuTypes, m.gpu_types));
  if (candidates.length === 0) {
    throw new Error(`no Nosana market offers the pool's allowed_gpu_types (${allowedGpuTypes.join(", ")})`);
  }
  const cheapest = [...candidates].sort((a, b) => a.usd_reward_per_hour - b.usd_reward_per_hour);
  const affordable = cheapest.filter(
    (m) => maxCostPerHour === null || m.usd_reward_per_hour <= maxCostPerHour,
  );
  const first = affordable[0];
  if (!first) {
    throw new Error(
      `no Nosana market under the pool's max_cost_per_hour ($${maxCostPerHour}/h; cheapest allowed: ${cheapest[0]?.slug} at $${cheapest[0]?.usd_reward_per_hour}/h)`,
    );
  }
  return first;
}
