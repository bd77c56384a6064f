// The deploy request, written once: the body of POST /deployment/deploy and POST /management/deployments,
// the fields of gRPC DeployModel and the dashboard's deploy form. The routes validate with this schema,
// the dashboard's form too, and deploy() checks what reaches it the same way (gRPC has no schema of its
// own), so a bound lives here and nowhere else.
import { type Static, Type as T } from "@sinclair/typebox";
import { TypeCompiler } from "@sinclair/typebox/compiler";
import { Nullable } from "#core/typebox.ts";
import type { Problems } from "#core/validation.ts";
import { maxPricePerMillion, priceProblem } from "../spend/prices.ts";

export const maxReplicas = 32;
export const workloadTypes = ["inference"] as const;

export const PricePerMillion = T.Number({
  minimum: 0,
  maximum: maxPricePerMillion,
  description:
    "What a million tokens cost, in the currency you bill in: each request's `cost` in the inference log. " +
    "Neither price set: a request costs its share of estimated_cost_per_hour (docs/observability.md)",
});

const NullablePrice = T.Optional(Nullable(PricePerMillion));

/** A deployment's replica count, at deploy and at every scale. */
export const Replicas = T.Integer({ minimum: 1, maximum: maxReplicas });

export const DeployRequest = T.Object({
  model_name: T.String({ description: "The deployment's unique name: the `model` of inference calls" }),
  model_version: T.Optional(T.String()),
  replicas: T.Optional(T.Integer({ ...Replicas, description: "Default 1 (external: one per endpoint)" })),
  gpu_per_replica: T.Optional(T.Integer({ minimum: 0 })),
  pool_id: T.String({ description: "The target compute pool" }),
  workload_type: T.Optional(T.String({ description: "inference" })),
  engine: T.Optional(
    T.String({
      description:
        "llama.cpp (local); openai-compatible, anthropic or gemini (external: the hosted API's wire format); default: the pool provider's first",
    }),
  ),
  configuration: T.Optional(
    T.Record(T.String(), T.Unknown(), {
      description:
        "local: threads, parallel, context_size; external: endpoints (URLs) and credential (the name of a credential of the external provider configuration)",
    }),
  ),
  owner_id: T.Optional(T.String()),
  org_id: T.Optional(T.String()),
  inference_model: T.Optional(
    T.String({
      description:
        "Model source: path, file:// or http(s):// URL of a GGUF file, or registry://name/version; external: the model name sent upstream (default: model_name)",
    }),
  ),
  image: T.Optional(
    T.String({
      description:
        "Container image (recorded; the local provider runs the engine's worker); required except on external pools",
    }),
  ),
  input_price_per_million: NullablePrice,
  output_price_per_million: NullablePrice,
});

export type DeployInput = Static<typeof DeployRequest>;

/** The answer to a deploy: created, and on its way (the reconciler takes it from here). */
export const DeployAnswer = T.Object({ deployment_id: T.String(), status: T.Literal("DEPLOYING") });
export type DeployAnswer = Static<typeof DeployAnswer>;

const check = TypeCompiler.Compile(DeployRequest);

/** What each field is told when the schema refuses it: the platform's words, the same over HTTP and gRPC. */
const fieldProblem: { readonly [field: string]: string } = {
  replicas: `must be an integer from 1 to ${maxReplicas}`,
  gpu_per_replica: "must be an integer, 0 or more",
  input_price_per_million: priceProblem,
  output_price_per_million: priceProblem,
};
const required = new Set<string>(DeployRequest.required ?? []);

const replicasCheck = TypeCompiler.Compile(Replicas);

/** A scale's replica count, against the same bound as a deploy's, in the same words. */
export function checkReplicas(replicas: unknown, problems: Problems): void {
  if (!replicasCheck.Check(replicas)) problems.add("replicas", fieldProblem.replicas as string);
}

/**
 * The schema's problems with `input`, one per field, added to `problems`. True when the input is a
 * DeployInput (it may still name a pool that does not exist and so on: deploy()'s later steps say).
 */
export function checkDeployRequest(input: unknown, problems: Problems): input is DeployInput {
  if (check.Check(input)) return true;
  const seen = new Set<string>();
  for (const error of check.Errors(input)) {
    const field = error.path.split("/").filter(Boolean)[0] ?? "body";
    if (seen.has(field)) continue;
    seen.add(field);
    problems.add(field, required.has(field) ? "is required" : (fieldProblem[field] ?? "is invalid"));
  }
  return false;
}
