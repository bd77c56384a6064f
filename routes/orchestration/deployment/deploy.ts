import { t } from "elysia";
import { route } from "../../../server/http/route.ts";
import { deploy } from "../../../services/orchestration/deployments.ts";

export const POST = route({
  access: "deployments:write",
  summary: "Deploy a model on a pool (status DEPLOYING; poll the status until RUNNING)",
  body: t.Object({
    model_name: t.String({ description: "The deployment's unique name: the `model` of inference calls" }),
    model_version: t.Optional(t.String()),
    replicas: t.Optional(t.Integer({ minimum: 1, description: "Default 1 (external: one per endpoint)" })),
    gpu_per_replica: t.Optional(t.Integer({ minimum: 0 })),
    pool_id: t.String({ description: "The target compute pool" }),
    workload_type: t.Optional(t.String({ description: "inference" })),
    engine: t.Optional(
      t.String({
        description: "llama.cpp (local) or openai-compatible (external); default: the pool provider's first",
      }),
    ),
    configuration: t.Optional(
      t.Record(t.String(), t.Unknown(), {
        description: "local: threads, parallel, context_size; external: endpoints (URLs), api_key",
      }),
    ),
    owner_id: t.Optional(t.String()),
    org_id: t.Optional(t.String()),
    inference_model: t.Optional(
      t.String({
        description:
          "Model source: path, file:// or http(s):// URL of a GGUF file, or registry://name/version",
      }),
    ),
    image: t.String({
      description: "Container image (recorded; the local provider runs the engine's worker)",
    }),
  }),
  response: t.Object({ deployment_id: t.String(), status: t.String() }),
  status: 201,
  handler: ({ ctx, body }) => deploy(ctx, body),
});
