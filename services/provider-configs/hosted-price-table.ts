// The hosted price table of the caller's organization (GET /management/config/hosted-prices): its own
// prices, stored in the `external` provider configuration's settings.model_prices, over the shipped list.
import { actorOf, type RequestContext } from "../context.ts";
import { effectiveHostedPrices } from "../spend/hosted-prices.ts";
import { providerSettings } from "./config.ts";

export async function hostedPriceTable(ctx: RequestContext) {
  return effectiveHostedPrices(await providerSettings(ctx, actorOf(ctx).orgId, "external"));
}
