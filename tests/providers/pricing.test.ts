// Prices in the providers' own units turned into dollars an hour, and placements held to the
// pool's ceiling: Akash bids (per block, uakt or dollar denoms) and Nosana markets.
import { expect, test } from "bun:test";
import { chooseBid } from "#adapters/providers/akash/bids.ts";
import { blocksPerHour, usdPerHour } from "#adapters/providers/akash/pricing.ts";
import { chooseMarket } from "#adapters/providers/nosana/markets.ts";
import type { ReplicaSpec } from "#adapters/providers/provider.ts";

const spec = (over: { ceiling?: number | null; gpus?: string[]; settings?: Record<string, unknown> } = {}) =>
  ({
    configuration: {},
    placement: { maxCostPerHour: over.ceiling ?? null, allowedGpuTypes: over.gpus ?? [] },
    access: { credentials: { api_key: "k" }, settings: over.settings ?? {} },
  }) as unknown as ReplicaSpec;

const bid = (provider: string, denom: string, amount: string, state = "open") => ({
  bid: { id: { owner: "o", dseq: "1", gseq: 1, oseq: 1, provider }, state, price: { denom, amount } },
});

test("Akash prices: per block times ~590 blocks an hour; uakt needs AKT's dollar price", () => {
  expect(blocksPerHour).toBeCloseTo(590.36, 1);
  expect(usdPerHour({ denom: "uact", amount: "1000" }, {})).toBe(0.590357);
  expect(usdPerHour({ denom: "uakt", amount: "1000" }, {})).toBeNull();
  expect(usdPerHour({ denom: "uakt", amount: "1000" }, { akt_price_usd: 2 })).toBe(1.180715);
});

test("Akash bids: the cheapest open one under the ceiling; none under it is an error naming the ceiling", () => {
  const bids = [
    bid("dear", "uact", "900"),
    bid("cheap", "uact", "100"),
    bid("closed", "uact", "1", "closed"),
  ];
  expect(chooseBid(bids, spec({ ceiling: 0.5 }))).toMatchObject({ id: { provider: "cheap" } });
  expect(chooseBid([], spec())).toBeUndefined();
  const refused = chooseBid([bid("dear", "uact", "900")], spec({ ceiling: 0.1 }));
  expect(refused).toEqual({
    error: "no Akash bid under the pool's max_cost_per_hour ($0.1/h; 1 bid(s), lowest $0.531322/h)",
  });
  const unpriced = chooseBid([bid("akt", "uakt", "100")], spec({ ceiling: 1 }));
  expect(unpriced).toMatchObject({ error: expect.stringContaining("akt_price_usd") });
});

test("Nosana markets: allowed GPU types, then the cheapest under the ceiling, or an error naming which constraint", () => {
  const markets = [
    { address: "a", slug: "3060", gpu_types: ["NVIDIA RTX 3060"], usd_reward_per_hour: 0.05 },
    { address: "b", slug: "4090", gpu_types: ["NVIDIA RTX 4090"], usd_reward_per_hour: 0.3 },
  ];
  expect(chooseMarket(markets, spec()).slug).toBe("3060");
  expect(chooseMarket(markets, spec({ gpus: ["RTX 4090"] })).slug).toBe("4090");
  expect(() => chooseMarket(markets, spec({ gpus: ["H100"] }))).toThrow("allowed_gpu_types (H100)");
  expect(() => chooseMarket(markets, spec({ gpus: ["RTX 4090"], ceiling: 0.1 }))).toThrow(
    "no Nosana market under the pool's max_cost_per_hour ($0.1/h; cheapest allowed: 4090 at $0.3/h)",
  );
});
