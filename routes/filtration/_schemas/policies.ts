import { t } from "elysia";

export const Policy = t.Object({
  policy_type: t.String(),
  deployment_id: t.Nullable(t.String()),
  api_key_id: t.Optional(
    t.Nullable(
      t.String({ description: "budget only: the API key the budget is for (null: the organization's)" }),
    ),
  ),
  config: t.Record(t.String(), t.Unknown()),
  updated_at: t.Nullable(
    t.String({ format: "date-time", description: "null: nothing set, the defaults apply" }),
  ),
  source: t.Union([t.Literal("deployment"), t.Literal("organization"), t.Literal("default")], {
    description: "Where the config that applies at this scope comes from",
  }),
});

export const configDescription = [
  "`rate_limit`: `{requests_per_minute?, tokens_per_minute?, on_store_error?: open|closed}` per API key",
  "per deployment (`on_store_error`: what happens while Redis is unreachable; default open).",
  "`quota`: `{requests_per_day?, tokens_per_day?}` per organization per UTC day.",
  "`guardrails`: `{input?: {pii?, toxicity?, prompt_injection?}, output?: {pii?, toxicity?, mode?: blocking|async}}`,",
  "each scanner `{action: off|log|redact|block, threshold?: 0..1}` (redact: pii only); toxicity and prompt_injection also take `classifier_threshold?: 0..1` (the trained classifier; 1 turns it off).",
  "`rag`: `{collection_ids, top_k? (1..50), min_score? (0..1)}`. `prompt`: `{template_id}` (null: none).",
  "`routing` (with `deployment_id` only): `{fallbacks?: [deployment name, ...], prefix_affinity?: boolean}`, other deployments of the",
  "organization tried in order when this one has no ready replica, answers 5xx or 429, or times out before",
  "the first byte; a response a fallback served carries `x-served-by: <deployment name>`. `prefix_affinity`",
  "(default true) sends a request to the replica that served the longest prefix of its prompt, within a load bound.",
  "`budget`: `{max_spend_per_day?, max_spend_per_month?}` in the deployments' price currency, for the organization,",
  "or for one API key with `api_key_id` (no `deployment_id`); once spent, calls get 429 insufficient_quota.",
  "`autoscaling` (with `deployment_id` only): `{min_replicas (0..32; 0 scales to zero), max_replicas (1..32),",
  "target_in_flight_per_replica, target_tokens_per_second_per_replica?, scale_up_delay_s? (default 5),",
  "scale_down_delay_s? (default 300), cold_start_timeout_s? (default 120), max_queued? (default 100)}`.",
].join(" ");
