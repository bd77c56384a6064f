// POST /v1/messages/count_tokens (Anthropic's Messages API): the prompt's tokens as the deployment's
// own tokenizer and chat template count them (services/inference/anthropic/messages.ts).
import { MessageCountTokensParams, MessageTokensCount } from "#contracts/anthropic/messages.ts";
import { withAnswerMeta } from "#server/http/inference-answer.ts";
import { route } from "#server/http/route.ts";
import { countTokens } from "#services/inference/anthropic/messages.ts";
import { inferenceRuntimeOf } from "#services/inference/runtime.ts";
import { anthropicLifecycleInput } from "../_lifecycle.ts";
import { lifecycleErrors } from "../_schemas/errors.ts";

export const POST = route({
  access: "public",
  apiKey: true,
  errorStyle: "anthropic",
  freeText: true,
  summary: "Count a message's input tokens (Anthropic's Messages API) with the deployment's tokenizer",
  description:
    "x-api-key: <API key> (or Authorization: Bearer). Counts system, messages and tools as the deployment's chat template renders them. Counted against the key's request rate limit; generates nothing.",
  body: MessageCountTokensParams,
  response: MessageTokensCount,
  errors: lifecycleErrors,
  handler: ({ ctx, body, request, set }) => {
    const input = anthropicLifecycleInput(ctx, request);
    return withAnswerMeta(countTokens(inferenceRuntimeOf(ctx), { ...input, body }), input.meta, set.headers);
  },
});
