// POST /v1/chat/completions: parse and build the generation, then answer once (JSON) or stream (SSE,
// chat-stream.ts). Each completion borrows one context sequence for its whole life.

import type { ChatCompletion } from "#contracts/openai/chat.ts";
import { streamCompletion } from "./chat-stream.ts";
import { buildGeneration, type GenerationInput, type GenerationOutcome } from "./generate.ts";
import { invalidStructuredOutput, parseChatRequest, usageOf } from "./openai-shapes.ts";
import {
  errorBody,
  json,
  logprobsOf,
  type Meta,
  nowSeconds,
  type RouteContext,
  readJson,
  runOnSequence,
  shuttingDown,
} from "./route-context.ts";
import { newToolCallId, toolCallOut } from "./tools.ts";

export async function chatCompletions(ctx: RouteContext, req: Request): Promise<Response> {
  const read = await readJson(req);
  if (!read.ok) return read.answer;
  const parsed = parseChatRequest(read.body);
  if (!parsed.ok) return json(400, parsed.error);
  const built = await buildGeneration(parsed.value, ctx.renderer);
  if (!built.ok) return json(400, built.error);

  // Stops the generation when the client goes away or the worker shuts down.
  const signal = AbortSignal.any([req.signal, ctx.shutdown]);
  const meta: Meta = {
    id: `chatcmpl-${crypto.randomUUID().replaceAll("-", "")}`,
    created: nowSeconds(),
    model: ctx.modelName,
  };
  if (parsed.value.stream) {
    const includeUsage = parsed.value.stream_options?.include_usage === true;
    return streamCompletion(ctx, built.value, signal, meta, includeUsage);
  }
  return ctx.track(completeOnce(ctx, built.value, signal, meta));
}

/** Generations of one answer under a schema: the first, and retries under other seeds while the check fails. */
export const STRUCTURED_ATTEMPTS = 3;

async function completeOnce(
  ctx: RouteContext,
  input: GenerationInput,
  signal: AbortSignal,
  meta: Meta,
): Promise<Response> {
  let outcome: GenerationOutcome | undefined;
  const firstSeed = input.seed ?? Math.floor(Math.random() * 2 ** 31);
  // A finished answer that fails its schema's check is generated again under another seed, never returned.
  for (let attempt = 0; attempt < STRUCTURED_ATTEMPTS; attempt++) {
    const seed = attempt === 0 ? input.seed : firstSeed + attempt;
    try {
      outcome = await runOnSequence(ctx, { ...input, seed }, signal);
    } catch (error) {
      const body = errorBody(ctx, error);
      return json(body.error.code === "worker_shutting_down" ? 503 : 500, body);
    }
    if (outcome.aborted && ctx.shutdown.aborted) return json(503, shuttingDown());
    if (outcome.invalid === undefined) return json(200, completionOf(outcome, meta));
    ctx.log.warn("an answer failed its schema's check", { attempt, seed, why: outcome.invalid });
  }
  return json(500, invalidStructuredOutput(outcome?.invalid ?? "", STRUCTURED_ATTEMPTS));
}

function completionOf(outcome: GenerationOutcome, meta: Meta): ChatCompletion {
  const calls = outcome.toolCalls;
  return {
    id: meta.id,
    object: "chat.completion",
    created: meta.created,
    model: meta.model,
    choices: [
      {
        index: 0,
        message: {
          role: "assistant",
          // OpenAI's shape: an answer that calls tools has null content unless the model also wrote text.
          content: calls.length > 0 && !outcome.text ? null : outcome.text,
          ...(calls.length > 0
            ? { tool_calls: calls.map((c) => toolCallOut(newToolCallId(), c.name, c.arguments)) }
            : {}),
          refusal: null,
        },
        logprobs: logprobsOf(outcome.logprobs),
        finish_reason: outcome.finishReason,
        ...(outcome.stopSequence === undefined ? {} : { stop_reason: outcome.stopSequence }),
      },
    ],
    usage: usageOf(outcome),
  };
}
