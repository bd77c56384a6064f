// Bid prices are per block in the smallest unit of a denom; pools speak US dollars per hour.
// Akash blocks come about every 6.1 s (the Console's own average), so an hour is ~590 blocks.
// uakt needs AKT's dollar price (`settings.akt_price_usd`); uact and USDC are dollars already.
import type { ProviderSettings } from "#core/options.ts";
import type { AkashPrice } from "./client.ts";

export const blocksPerHour = 3600 / 6.098;

export function usdPerHour(price: AkashPrice, settings: Readonly<ProviderSettings>): number | null {
  const amount = Number(price.amount);
  if (!Number.isFinite(amount)) return null;
  const perUnit =
    price.denom === "uakt" ? (typeof settings.akt_price_usd === "number" ? settings.akt_price_usd : null) : 1; // uact, and USDC (an ibc/… denom): one micro-unit is one millionth of a dollar.
  return perUnit === null ? null : Math.round(amount * blocksPerHour * perUnit) / 1e6;
}
