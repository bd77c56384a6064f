// Choosing a bid: open bids only, priced in dollars under the pool's max_cost_per_hour, the
// cheapest first. The GPU models were already demanded in the SDL, so only providers with an
// allowed GPU bid at all. No bid under the ceiling is an error naming the ceiling.
import type { ReplicaSpec } from "../provider.ts";
import type { AkashBid, AkashBidId } from "./client.ts";
import { usdPerHour } from "./pricing.ts";

export interface ChosenBid {
  id: AkashBidId;
  usdPerHour: number | null;
}

export function chooseBid(bids: AkashBid[], spec: ReplicaSpec): ChosenBid | { error: string } | undefined {
  const ceiling = spec.placement.maxCostPerHour;
  const open = bids
    .filter((b) => b.bid.state === "open")
    .flatMap((b): ChosenBid[] => {
      const id = b.bid.id ?? b.bid.bid_id;
      return id ? [{ id, usdPerHour: usdPerHour(b.bid.price, spec.access.settings) }] : [];
    });
  if (open.length === 0) return undefined;
  const priced = open
    .filter((b) => b.usdPerHour !== null)
    .sort((a, b) => (a.usdPerHour ?? 0) - (b.usdPerHour ?? 0));
  if (ceiling === null) return priced[0] ?? open[0];
  const under = priced.filter((b) => b.usdPerHour !== null && b.usdPerHour <= ceiling);
  if (under[0]) return under[0];
  const lowest = priced[0]?.usdPerHour;
  return {
    error:
      lowest === undefined
        ? `no Akash bid can be priced against the pool's max_cost_per_hour ($${ceiling}/h): set akt_price_usd in the akash settings`
        : `no Akash bid under the pool's max_cost_per_hour ($${ceiling}/h; ${open.length} bid(s), lowest $${lowest}/h)`,
  };
}
