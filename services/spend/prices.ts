// What one inference request costs. A deployment priced per million tokens (input and output, in the
// operator's currency) charges exactly tokens × price; prompt tokens the engine reused (cached_tokens)
// at the cached input price when one is set. A deployment without token prices but with a
// provider's estimated_cost_per_hour charges each request the share of that cost its replica spent
// on it: cost per hour ÷ ready replicas × the request's duration. That share is an estimate: it
// ignores idle time and counts overlapping requests of one replica each in full.
import type { Problems } from "#core/validation.ts";

export interface DeploymentPrice {
  input_price_per_million: number | null;
  output_price_per_million: number | null;
  /**
   * Prompt tokens the engine reused from its prefix cache (cached_tokens), which cost it far less to
   * serve; null or absent: charged at the input price like the rest of the prompt.
   */
  cached_input_price_per_million?: number | null | undefined;
  /** The provider's estimate for the whole deployment, used only when no token price is set. */
  estimated_cost_per_hour: number | null;
}

export interface PricedUsage {
  promptTokens: number;
  /** Of the prompt tokens, those the engine reused (0 when it says none). */
  cachedTokens?: number | undefined;
  completionTokens: number;
  latencyMs: number;
  /** Ready replicas the deployment had when the request was admitted (at least one served it). */
  replicas: number;
}

const hourMs = 3_600_000;
/** Costs are kept to a billionth of a currency unit: no float noise in sums, far below a cent. */
const round = (n: number) => Math.round(n * 1e9) / 1e9;

export const isPriced = (price: DeploymentPrice | undefined): boolean =>
  price !== undefined &&
  (price.input_price_per_million !== null ||
    price.output_price_per_million !== null ||
    (price.estimated_cost_per_hour ?? 0) > 0);

export function costOf(price: DeploymentPrice | undefined, usage: PricedUsage): number {
  if (!price) return 0;
  const input = price.input_price_per_million;
  const output = price.output_price_per_million;
  if (input !== null || output !== null) {
    const cachedPrice = price.cached_input_price_per_million;
    const cached =
      cachedPrice === null || cachedPrice === undefined
        ? 0
        : Math.min(Math.max(0, usage.cachedTokens ?? 0), usage.promptTokens);
    const prompt = (input ?? 0) * (usage.promptTokens - cached) + (cachedPrice ?? 0) * cached;
    return round((prompt + (output ?? 0) * usage.completionTokens) / 1_000_000);
  }
  const perHour = price.estimated_cost_per_hour ?? 0;
  if (perHour <= 0) return 0;
  return round(((perHour / Math.max(1, usage.replicas)) * Math.max(0, usage.latencyMs)) / hourMs);
}

/** Largest accepted price per million tokens: far above any real price, small enough for doubles. */
export const maxPricePerMillion = 1_000_000;

/** What a price out of range is told, at deploy (services/orchestration/deploy-request.ts) or later. */
export const priceProblem = `must be a number from 0 to ${maxPricePerMillion} (per million tokens), or null`;

/** A price per million tokens given at deploy or later: null clears it, undefined leaves it. */
export function checkPrice(problems: Problems, field: string, value: unknown): void {
  if (value === undefined || value === null) return;
  if (typeof value !== "number" || !Number.isFinite(value) || value < 0 || value > maxPricePerMillion)
    problems.add(field, priceProblem);
}
