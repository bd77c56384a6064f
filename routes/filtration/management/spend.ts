import { t } from "elysia";
import { route } from "#server/http/route.ts";
import { spendOf } from "#services/spend/spend.ts";

const Totals = {
  requests: t.Integer(),
  prompt_tokens: t.Integer(),
  completion_tokens: t.Integer(),
  cost: t.Number({ description: "In the deployments' price currency" }),
};

export const GET = route({
  access: "logs:read",
  summary: "What your organization's calls cost, per deployment, API key or UTC day",
  description:
    "Sums of the requests that had usage between `from` and `to` (UTC days, both included; default the 30 days " +
    "to today), priced at their deployments' prices when they ran. `group_by`: deployment (default), api_key " +
    "(api_key_id null: the dashboard's playground) or day.",
  query: t.Object({
    from: t.Optional(t.String({ description: "First UTC day, YYYY-MM-DD" })),
    to: t.Optional(t.String({ description: "Last UTC day, YYYY-MM-DD (included)" })),
    group_by: t.Optional(t.Union([t.Literal("deployment"), t.Literal("api_key"), t.Literal("day")])),
  }),
  response: t.Object({
    from: t.String(),
    to: t.String(),
    group_by: t.String(),
    total: t.Object(Totals),
    items: t.Array(
      t.Object({
        day: t.Optional(t.String()),
        deployment_id: t.Optional(t.Nullable(t.String())),
        deployment_name: t.Optional(t.Nullable(t.String())),
        api_key_id: t.Optional(t.Nullable(t.String())),
        api_key_name: t.Optional(t.Nullable(t.String())),
        key_prefix: t.Optional(t.Nullable(t.String())),
        ...Totals,
      }),
    ),
  }),
  handler: ({ ctx, query }) => spendOf(ctx, query),
});
