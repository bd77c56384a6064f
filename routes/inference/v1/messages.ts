// POST /v1/messages (Anthropic's Messages API), translated to the deployment's chat endpoint by
// services/inference/anthropic/. Access is "public" at the guard: the API key (x-api-key, or
// Authorization: Bearer) is the lifecycle's first step; errors are answered in Anthropic's shape.
import { Message, MessageCreateParams, MessageStreamEvent } from "#contracts/anthropic/messages.ts";
import { answerWith } from "#server/http/inference-answer.ts";
import { route } from "#server/http/route.ts";
import { createMessage } from "#services/inference/anthropic/messages.ts";
import { inferenceRuntimeOf } from "#services/inference/runtime.ts";
import { anthropicLifecycleInput } from "./_lifecycle.ts";
import { lifecycleErrors } from "./_schemas/errors.ts";

export const POST = route({
  access: "public",
  apiKey: true,
  errorStyle: "anthropic",
  freeText: true,
  summary:
    "Create a message (Anthropic's Messages API; `model` is the deployment name; `stream` for SSE events)",
  description:
    "x-api-key: <API key> (or Authorization: Bearer). anthropic-version and anthropic-beta are accepted. Served by the deployment's chat endpoint; rate limits, quota, budgets, guardrails, prompt templates, retrieval and fallbacks of the deployment apply. Errors use Anthropic's shape.",
  body: MessageCreateParams,
  response: Message,
  stream: MessageStreamEvent,
  errors: lifecycleErrors,
  handler: ({ ctx, body, request, set }) => {
    const input = anthropicLifecycleInput(ctx, request);
    return answerWith(createMessage(inferenceRuntimeOf(ctx), { ...input, body }), input.meta, set.headers);
  },
});
