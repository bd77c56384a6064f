// POST /v1/chat/completions. Access is "public" at the guard because the API key is the lifecycle's
// own first step (services/inference/chat.ts), answered in the OpenAI error shape.

import { ChatCompletion, ChatCompletionChunk, ChatCompletionRequest } from "#contracts/openai/chat.ts";
import { answerWith } from "#server/http/inference-answer.ts";
import { route } from "#server/http/route.ts";
import { chatCompletion } from "#services/inference/chat.ts";
import { inferenceRuntimeOf } from "#services/inference/runtime.ts";
import { lifecycleInput } from "../_lifecycle.ts";
import { lifecycleErrors } from "../_schemas/errors.ts";

export const POST = route({
  access: "public",
  apiKey: true,
  // Prompts, documents and model output: any character but NUL.
  freeText: true,
  summary: "Chat completion (OpenAI-compatible; `model` is the deployment name; `stream` for SSE)",
  description:
    "Authorization: Bearer <API key>. Rate limits, quota, guardrails and prompt templates of the deployment " +
    "apply. A replica's own 4xx (a request its model cannot serve) reaches the client with the replica's " +
    "status and error; a replica that fails is 502, one that does not answer in time 504.",
  body: ChatCompletionRequest,
  relayed: ChatCompletion,
  stream: ChatCompletionChunk,
  errors: lifecycleErrors,
  handler: ({ ctx, body, request, set }) => {
    const input = lifecycleInput(ctx, request);
    return answerWith(chatCompletion(inferenceRuntimeOf(ctx), { ...input, body }), input.meta, set.headers);
  },
});
