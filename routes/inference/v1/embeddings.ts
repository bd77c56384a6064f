// POST /v1/embeddings. Access is "public" at the guard because the API key is the lifecycle's own first
// step (services/inference/admission.ts), answered in the OpenAI error shape.

import { EmbeddingsRequest, EmbeddingsResponse } from "#contracts/openai/embeddings.ts";
import { bearerOf } from "#server/http/gateway.ts";
import { withAnswerMeta } from "#server/http/inference-answer.ts";
import { route } from "#server/http/route.ts";
import type { AnswerMeta } from "#services/inference/answer-meta.ts";
import { createEmbeddings } from "#services/inference/embeddings.ts";
import { inferenceRuntimeOf } from "#services/inference/runtime.ts";
import { lifecycleErrors } from "./_schemas/errors.ts";

export const POST = route({
  access: "public",
  apiKey: true,
  // Prompts, documents and model output: any character but NUL.
  freeText: true,
  summary: "Embeddings (OpenAI-compatible; `model` is the deployment name)",
  description:
    "Authorization: Bearer <API key>. Rate limits and quota of the deployment apply; it is logged.",
  body: EmbeddingsRequest,
  relayed: EmbeddingsResponse,
  errors: lifecycleErrors,
  handler: ({ ctx, body, request, set }) => {
    const meta: AnswerMeta = {};
    const pending = createEmbeddings(inferenceRuntimeOf(ctx), {
      apiKey: bearerOf(request),
      body,
      requestId: ctx.requestId,
      signal: request.signal,
      meta,
      incoming: request.headers,
    });
    return withAnswerMeta(pending, meta, set.headers);
  },
});
