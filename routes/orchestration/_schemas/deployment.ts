import { t } from "elysia";
import { deploymentStates, desiredStates } from "#core/domain.ts";
import { PricePerMillion } from "#services/orchestration/deploy-request.ts";

export const DeploymentId = t.Object({
  deployment_id: t.String({ minLength: 1, description: "The deployment's id" }),
});

const Replica = t.Object({
  index: t.Integer(),
  state: t.String({ description: "PENDING, STARTING, READY, UNHEALTHY, RESTARTING, STOPPED or FAILED" }),
  endpoint: t.Nullable(t.String({ description: "OpenAI base URL (…/v1) of the replica" })),
  provider_instance_id: t.Nullable(t.String()),
  restarts: t.Integer(),
  last_error: t.Nullable(t.String()),
  started_at: t.Nullable(t.String({ format: "date-time" })),
  updated_at: t.String({ format: "date-time" }),
});

const Transition = t.Object({
  at: t.String({ format: "date-time" }),
  from: t.Nullable(t.String()),
  to: t.String(),
  reason: t.Nullable(t.String()),
  replicas: t.Optional(
    t.Object(
      { from: t.Integer(), to: t.Integer() },
      {
        description:
          "Autoscaling decisions only (the state stays): replicas wanted before and after; equal when a bound (max_cost_per_hour, provider capacity) stopped a scale-up",
      },
    ),
  ),
});

export const Deployment = t.Object({
  deployment_id: t.String(),
  model_name: t.String({ description: "The deployment name: the `model` of inference calls" }),
  status: t.Union(
    deploymentStates.map((s) => t.Literal(s)),
    { description: "DEPLOYING, RUNNING, STOPPING, STOPPED or FAILED" },
  ),
  desired_state: t.Union(
    desiredStates.map((s) => t.Literal(s)),
    { description: "running or stopped: what the reconciler drives toward" },
  ),
  failure_reason: t.Nullable(t.String()),
  model_version: t.Nullable(t.String()),
  pool_id: t.String(),
  pool_name: t.Nullable(t.String()),
  provider: t.Nullable(t.String()),
  engine: t.String(),
  workload_type: t.String(),
  inference_model: t.Nullable(t.String({ description: "The model source" })),
  image: t.String(),
  replicas: t.Integer({ description: "Replicas wanted (the autoscaling policy may change it)" }),
  scaled_to_zero: t.Boolean({
    description:
      "RUNNING with no replica wanted: its autoscaling policy scaled it to zero; a request starts one",
  }),
  gpu_per_replica: t.Integer(),
  observed_replicas: t.Array(Replica),
  endpoints: t.Array(t.String(), { description: "Endpoints of the READY replicas" }),
  transitions: t.Array(Transition, { description: "Oldest first" }),
  owner_id: t.Nullable(t.String()),
  org_id: t.String(),
  estimated_cost_per_hour: t.Nullable(t.Number()),
  input_price_per_million: t.Nullable(
    t.Number({ description: "What a million input tokens cost, in your currency; null: not set" }),
  ),
  output_price_per_million: t.Nullable(
    t.Number({ description: "What a million output tokens cost, in your currency; null: not set" }),
  ),
  cached_input_price_per_million: t.Nullable(
    t.Number({
      description:
        "What a million prompt tokens the engine reused (cached_tokens) cost; null: the input price",
    }),
  ),
  created_at: t.String({ format: "date-time" }),
  updated_at: t.String({ format: "date-time" }),
});

/** POST /deployment/price: change a deployment's token prices. */
export const PriceRequest = t.Object({
  deployment_id: t.String({ minLength: 1 }),
  input_price_per_million: t.Optional(t.Nullable(PricePerMillion)),
  output_price_per_million: t.Optional(t.Nullable(PricePerMillion)),
  cached_input_price_per_million: t.Optional(t.Nullable(PricePerMillion)),
});
