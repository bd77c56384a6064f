import { t } from "elysia";
import { PolicyTypeParams } from "#core/policies.ts";
import { route } from "#server/http/route.ts";
import { deletePolicy, getPolicy, setPolicy } from "#services/policies/policies.ts";
import { configDescription, Policy } from "../../_schemas/policies.ts";

const scope = t.Object({
  deployment_id: t.Optional(
    t.String({ description: "A deployment's own policy; left out: the organization's" }),
  ),
  api_key_id: t.Optional(t.String({ description: "budget only: one API key's budget" })),
});

export const GET = route({
  access: "policies:read",
  summary: "The policy of a type that applies to the organization, to one deployment, or to one API key",
  description:
    "With `deployment_id`: the deployment's own policy, else the organization's, else the defaults (`source` says which). " +
    "With `api_key_id` (budget only): that key's own budget, else the defaults (the organization's budget applies beside it).",
  params: PolicyTypeParams,
  query: scope,
  response: Policy,
  handler: ({ ctx, params, query }) => getPolicy(ctx, params.policy_type, query),
});

export const POST = route({
  access: "policies:write",
  summary:
    "Set the policy of a type for the organization, for one deployment (overriding the organization's), or one API key's budget",
  description: configDescription,
  params: PolicyTypeParams,
  body: t.Object({
    deployment_id: t.Optional(t.String()),
    api_key_id: t.Optional(t.String({ description: "budget only: the API key the budget is for" })),
    config: t.Record(t.String(), t.Unknown(), { description: "Validated against the type's schema" }),
  }),
  response: Policy,
  handler: ({ ctx, params, body }) => setPolicy(ctx, params.policy_type, body),
});

export const DELETE = route({
  access: "policies:write",
  summary: "Remove the policy set at this scope (the organization's, or the defaults, apply again)",
  params: PolicyTypeParams,
  query: scope,
  response: t.Object({
    policy_type: t.String(),
    deployment_id: t.Nullable(t.String()),
    api_key_id: t.Optional(t.Nullable(t.String())),
    deleted: t.Literal(true),
  }),
  handler: ({ ctx, params, query }) => deletePolicy(ctx, params.policy_type, query),
});
