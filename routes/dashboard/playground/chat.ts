// The playground's chat: the same lifecycle as POST /v1/chat/completions (guardrails, templates,
// retrieval, rate limits and quota of the deployment), on behalf of the signed-in user instead of an
// API key, always streamed (Server-Sent Events in the OpenAI chunk format) to assets/dashboard.js.
import { t } from "elysia";
import { ChatCompletionRequest, ChatMessage } from "#contracts/openai/chat.ts";
import { AppError } from "#core/errors.ts";
import { sseHeaders, withAnswerMeta } from "#server/http/inference-answer.ts";
import { route } from "#server/http/route.ts";
import { actorOf } from "#services/context.ts";
import type { AnswerMeta } from "#services/inference/answer-meta.ts";
import { chatCompletion } from "#services/inference/chat.ts";
import { resolveUserContext } from "#services/inference-context/resolve.ts";

const fields = ChatCompletionRequest.properties;

export const PlaygroundChatBody = t.Object({
  deployment: fields.model,
  system: t.Optional(t.String({ maxLength: 100_000 })),
  messages: t.Array(ChatMessage, { minItems: 1, maxItems: 200 }),
  max_tokens: fields.max_tokens,
  temperature: fields.temperature,
});

export const POST = route({
  access: "deployments:read",
  summary: "Send the playground's conversation to a deployment; the answer streams back as SSE",
  html: true,
  body: PlaygroundChatBody,
  handler: async ({ ctx, body, request, set }) => {
    if (!ctx.inference) {
      throw new AppError(
        "unavailable",
        "the inference gateway does not run in this process (SERVICES has no inference), so the playground cannot call a model",
      );
    }
    const messages = body.system
      ? [{ role: "system" as const, content: body.system }, ...body.messages]
      : body.messages;
    const meta: AnswerMeta = {};
    const pending = chatCompletion(ctx.inference, {
      apiKey: undefined,
      resolved: await resolveUserContext(ctx, actorOf(ctx), body.deployment),
      body: {
        model: body.deployment,
        messages,
        stream: true,
        ...(body.max_tokens !== undefined ? { max_tokens: body.max_tokens } : {}),
        ...(body.temperature !== undefined ? { temperature: body.temperature } : {}),
      },
      requestId: ctx.requestId,
      signal: request.signal,
      meta,
    });
    const result = await withAnswerMeta(pending, meta, set.headers);
    const headers = sseHeaders(set.headers, playgroundStream);
    if (result.kind === "json") return new Response(JSON.stringify(result.body), { headers });
    return new Response(result.stream, { headers });
  },
});

const playgroundStream = { "content-type": "text/event-stream", "cache-control": "no-store" };
