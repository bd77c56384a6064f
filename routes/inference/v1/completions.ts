// POST /v1/completions (legacy text completions), translated to the deployment's chat endpoint by
// services/inference/completions/. Access is "public" at the guard: the API key is the lifecycle's
// first step, answered in the OpenAI error shape.

import { Completion, CompletionChunk, CompletionRequest } from "#contracts/openai/completions.ts";
import { answerWith } from "#server/http/inference-answer.ts";
import { route } from "#server/http/route.ts";
import { createCompletion } from "#services/inference/completions/completions.ts";
import { inferenceRuntimeOf } from "#services/inference/runtime.ts";
import { lifecycleInput } from "./_lifecycle.ts";
import { lifecycleErrors } from "./_schemas/errors.ts";

export const POST = route({
  access: "public",
  apiKey: true,
  summary: "Text completion (OpenAI's legacy API; `model` is the deployment name; `stream` for SSE)",
  description:
    "Authorization: Bearer <API key>. Served by the deployment's chat endpoint: the prompt is sent as one user message. Rate limits, quota, guardrails and prompt templates of the deployment apply.",
  body: CompletionRequest,
  response: Completion,
  stream: CompletionChunk,
  errors: lifecycleErrors,
  handler: ({ ctx, body, request, set }) => {
    const input = lifecycleInput(ctx, request);
    return answerWith(createCompletion(inferenceRuntimeOf(ctx), { ...input, body }), input.meta, set.headers);
  },
});
