// A static sibling of [policy_type].ts: /management/config/hosted-prices is matched before the parameter.
import { t } from "elysia";
import { route } from "#server/http/route.ts";
import { hostedPriceTable } from "#services/provider-configs/hosted-price-table.ts";

const Row = t.Object({
  model: t.String({ description: "The upstream model name (a deployment's inference_model)" }),
  input_price_per_million: t.Number(),
  output_price_per_million: t.Number(),
  cached_input_price_per_million: t.Optional(t.Nullable(t.Number())),
  source: t.Union([t.Literal("organization"), t.Literal("list")], {
    description:
      "organization: set in the external provider configuration's settings.model_prices; list: shipped",
  }),
});

export const GET = route({
  access: "providers:read",
  summary: "The hosted price table: what a hosted deployment without prices of its own is charged",
  description:
    "The organization's own prices (`settings.model_prices` of the external provider configuration, set with " +
    "POST /management/config/providers) over the list prices shipped with the platform, per million tokens.",
  response: t.Object({ list_prices_as_of: t.String(), prices: t.Array(Row) }),
  handler: ({ ctx }) => hostedPriceTable(ctx),
});
