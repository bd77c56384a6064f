// POST /v1/responses (OpenAI's Responses API), translated to the deployment's chat endpoint by
// services/inference/responses/. Access is "public" at the guard: the API key is the lifecycle's
// first step, answered in the OpenAI error shape.
import { ResponseObject, ResponseStreamEvent, ResponsesRequest } from "#contracts/openai/responses.ts";
import { answerWith } from "#server/http/inference-answer.ts";
import { route } from "#server/http/route.ts";
import { createResponse } from "#services/inference/responses/responses.ts";
import { inferenceRuntimeOf } from "#services/inference/runtime.ts";
import { lifecycleInput } from "./_lifecycle.ts";
import { lifecycleErrors } from "./_schemas/errors.ts";

export const POST = route({
  access: "public",
  apiKey: true,
  summary:
    "Create a response (OpenAI's Responses API; `model` is the deployment name; `stream` for SSE events)",
  description:
    "Authorization: Bearer <API key>. Served by the deployment's chat endpoint. `store` (default true) keeps the response for GET and `previous_response_id` until it is deleted. Rate limits, quota, guardrails and prompt templates of the deployment apply.",
  body: ResponsesRequest,
  response: ResponseObject,
  stream: ResponseStreamEvent,
  errors: lifecycleErrors,
  handler: ({ ctx, body, request, set }) => {
    const input = lifecycleInput(ctx, request);
    return answerWith(createResponse(inferenceRuntimeOf(ctx), { ...input, body }), input.meta, set.headers);
  },
});
