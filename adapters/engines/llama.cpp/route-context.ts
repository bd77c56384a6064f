// What the worker's route handlers share: their dependencies, the tracker of work still running
// (so a shutdown waits for it), a completion's run on a borrowed sequence, and the error answers.
import type { ChatWrapper, LlamaContextSequence } from "node-llama-cpp";
import type { ChoiceLogprobs } from "#contracts/openai/chat.ts";
import type { OpenAIError } from "#contracts/openai/error.ts";
import type { Lockstep } from "./batching.ts";
import type { Embedder } from "./embeddings.ts";
import {
  type GenerationEvents,
  type GenerationInput,
  type GenerationOutcome,
  generate,
  type PromptRenderer,
} from "./generate.ts";
import type { Log } from "./log.ts";
import type { SampledToken } from "./logprobs.ts";
import { invalidRequest, serverError } from "./openai-shapes.ts";
import { QueueClosedError, type SequencePool } from "./sequences.ts";

export interface RoutesDeps {
  modelName: string;
  renderer: PromptRenderer & { chatWrapper: ChatWrapper };
  pool: SequencePool<LlamaContextSequence>;
  /** The context's: keeps concurrent generations decoding in shared batches. */
  lockstep: Lockstep;
  /** Aborted when the worker shuts down: every generation stops. */
  shutdown: AbortSignal;
  log: Log;
  embedder?: Embedder | undefined;
}

export interface RouteContext extends RoutesDeps {
  /** Keeps `work` among what the worker waits for before it exits. */
  track<V>(work: Promise<V>): Promise<V>;
}

/** What every answer of one completion repeats. */
export interface Meta {
  id: string;
  created: number;
  model: string;
}

const SHUTTING_DOWN = "the worker is shutting down";
export const shuttingDown = () => serverError(SHUTTING_DOWN, "worker_shutting_down");

export const json = (status: number, body: unknown): Response => Response.json(body, { status });

export const nowSeconds = (): number => Math.floor(Date.now() / 1000);

export const logprobsOf = (tokens: SampledToken[] | undefined): ChoiceLogprobs | null =>
  tokens ? { content: tokens, refusal: null } : null;

/** The request's JSON body, or the 400 answer saying it is not JSON. */
export async function readJson(
  req: Request,
): Promise<{ ok: true; body: unknown } | { ok: false; answer: Response }> {
  try {
    return { ok: true, body: await req.json() };
  } catch {
    return { ok: false, answer: json(400, invalidRequest("the body is not valid JSON")) };
  }
}

/**
 * Waits for a free sequence (FIFO; the one sharing the longest prefix with the prompt, else the least recently
 * used), generates, and always gives the sequence back, keeping its tokens for the next request. After a failure
 * the sequence is cleared: what it holds is not known.
 */
export async function runOnSequence(
  ctx: RouteContext,
  input: GenerationInput,
  signal: AbortSignal,
  events: GenerationEvents = {},
): Promise<GenerationOutcome> {
  const lease = await ctx.pool.acquire(input.prompt, signal);
  let failed = true;
  try {
    if (!input.cachePrompt) await lease.item.clearHistory();
    const outcome = await generate(lease.item, ctx.renderer, input, {
      signal,
      lockstep: ctx.lockstep,
      ...events,
    });
    failed = false;
    ctx.log.debug("completion", {
      prompt_tokens: outcome.promptTokens,
      cached_tokens: outcome.cachedTokens,
      completion_tokens: outcome.completionTokens,
      finish_reason: outcome.finishReason,
      aborted: outcome.aborted,
      lockstep: ctx.lockstep.stats,
    });
    return outcome;
  } finally {
    await lease
      .release({ clear: failed })
      .catch((error: unknown) => ctx.log.error("could not clear a sequence", { error }));
  }
}

/** A failed generation's error: the shutdown's when it is one, else logged as the model's failure. */
export function errorBody(ctx: RouteContext, error: unknown): OpenAIError {
  if (error instanceof QueueClosedError || ctx.shutdown.aborted) return shuttingDown();
  ctx.log.error("generation failed", { error });
  return serverError("the model failed to generate an answer", "generation_failed");
}
