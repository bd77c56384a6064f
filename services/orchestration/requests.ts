// Requests that more than one entry point takes (the orchestration API and the dashboard's forms);
// the deploy request has its own file (deploy-request.ts).
import { Type as T } from "@sinclair/typebox";
import { Nullable } from "#core/typebox.ts";

/** The body of POST /deployment/registerModel, and the dashboard's register form. */
export const RegisterModelBody = T.Object({
  model_name: T.String({ description: "Letters, digits, . _ : -" }),
  model_version: T.Optional(T.String({ description: "Default: latest" })),
  backend: T.String({
    description: "The inference engine: llama.cpp, vllm, sglang, tgi, openai-compatible",
  }),
  artifact_uri: T.Optional(T.String({ description: "Path, file:// or http(s):// URL of the model file" })),
  shared: T.Optional(
    T.Boolean({
      description:
        "Default false: other organizations may not deploy its artifact file by path. True shares it on purpose.",
    }),
  ),
  config_json: T.Optional(T.Record(T.String(), T.Unknown())),
});

/** The body of POST /deployment/createpool, and the dashboard's create form. */
export const CreatePoolBody = T.Object({
  pool_name: T.Optional(T.String({ description: "Unique in the organization; generated when absent" })),
  owner_type: T.Optional(T.String({ description: "org (default) or user" })),
  owner_id: T.Optional(T.String({ description: "Your organization's id (or your user id); the default" })),
  provider: T.Optional(
    T.String({ description: "local (default here), external, kubernetes, skypilot, akash, nosana" }),
  ),
  allowed_gpu_types: T.Optional(T.Array(T.String())),
  max_cost_per_hour: T.Optional(Nullable(T.Number({ minimum: 0 }))),
  is_dedicated: T.Optional(T.Boolean()),
  provider_pool_id: T.Optional(T.String()),
  scheduling_policy_json: T.Optional(T.String({ description: "JSON text of an object" })),
  // TypeBox's own integer (Elysia's also takes numeric text, which the dashboard's form would keep as text).
  size: T.Optional(
    Nullable(
      T.Integer({
        minimum: 1,
        maximum: 1024,
        description:
          "The pool's size: the most replicas (one node each) its deployments may want at once; absent or null: no limit",
      }),
    ),
  ),
});
