// POST /v1/messages and /v1/messages/count_tokens (Anthropic's Messages API): a translator around
// the chat core (../chat.ts), which runs the one lifecycle (key, context, limits, quota and budgets,
// guardrails, templates and retrieval, routing and fallbacks, logs, spend, metrics and traces).
// count_tokens runs the lifecycle's admission (key, context, rate limits) and asks a replica to count
// the prompt with the deployment's own tokenizer and chat template.
import { replicaError } from "#adapters/upstream/refusal.ts";
import type {
  Message,
  MessageCountTokensParams,
  MessageCreateParams,
  MessageTokensCount,
} from "#contracts/anthropic/messages.ts";
import type { InferenceAnswer } from "#contracts/internal/inference-answer.ts";
import type { ReceivedCompletion } from "#contracts/openai/chat.ts";
import { AppError } from "#core/errors.ts";
import { startRequest } from "../admission.ts";
import { chatCompletion } from "../chat.ts";
import { translateChatStream } from "../chat-stream.ts";
import type { TranslatedInput } from "../completions/completions.ts";
import { estimatePromptTokens } from "../messages.ts";
import { sendRouted } from "../routing.ts";
import type { InferenceRuntime } from "../runtime.ts";
import { messageOf, newMessageId } from "./answer.ts";
import { promptOf, toChatRequest } from "./request.ts";
import { messageEvents } from "./stream.ts";

export type MessageResult = InferenceAnswer<Message>;

export async function createMessage(
  runtime: InferenceRuntime,
  input: TranslatedInput<MessageCreateParams>,
): Promise<MessageResult> {
  const { body } = input;
  const result = await chatCompletion(runtime, {
    ...input,
    body: toChatRequest(body),
    inputParam: "messages",
  }).catch((error: unknown) => {
    throw inAnthropicWords(error);
  });
  const id = newMessageId();
  if (result.kind === "stream") {
    return {
      kind: "stream",
      stream: translateChatStream(
        result.stream,
        messageEvents({ id, requestId: input.requestId, request: body }),
      ),
      cache: result.cache,
    };
  }
  return { kind: "json", body: messageOf(id, body, result.body as ReceivedCompletion), cache: result.cache };
}

/**
 * A prompt longer than the context, in Anthropic's words: Claude Code reads "prompt is too long: N tokens
 * > M maximum" to know by how much, and compacts a long session by that much. The engines' own messages
 * (ours, vLLM's, OpenAI's) name the context's size first and the prompt's second.
 */
function inAnthropicWords(error: unknown): unknown {
  if (!(error instanceof AppError) || error.details?.openai_code !== "context_length_exceeded") return error;
  const [limit, actual] = (error.message.match(/\d[\d,]*/g) ?? []).map((n) => Number(n.replaceAll(",", "")));
  const message =
    limit !== undefined && actual !== undefined
      ? `prompt is too long: ${actual} tokens > ${limit} maximum`
      : `prompt is too long: ${error.message}`;
  return new AppError(error.code, message, error.details);
}

/** What a replica's tokenizer endpoint answers (the llama.cpp worker's POST /v1/tokenize, as vLLM's). */
interface TokenizeAnswer {
  count?: number;
}

export async function countTokens(
  runtime: InferenceRuntime,
  input: TranslatedInput<MessageCountTokensParams>,
): Promise<MessageTokensCount> {
  const prompt = promptOf(input.body);
  const request = startRequest(runtime, {
    requestId: input.requestId,
    model: input.body.model,
    operation: "chat",
    stream: false,
    answer: input.meta,
    incoming: input.incoming,
  });
  try {
    const context = await request.admit({
      apiKey: input.apiKey,
      promptTokens: estimatePromptTokens(prompt.messages),
      // Counting writes no completion: nothing beyond the prompt is reserved.
      maxTokens: 0,
      signal: input.signal,
    });
    const call = (path: string, extra: Record<string, unknown>) =>
      sendRouted(runtime, request, context, {
        path,
        body: (deploymentName) => JSON.stringify({ ...prompt, ...extra, model: deploymentName }),
        signal: input.signal,
        firstByteTimeoutMs: runtime.timeouts.firstByteMs,
      });
    let upstream = await call("/tokenize", {});
    let viaCompletion = false;
    if (upstream.response.status === 404) {
      // An engine without a tokenizer endpoint counts the prompt of a one-token completion instead.
      upstream.release();
      upstream = await call("/chat/completions", { max_tokens: 1, stream: false });
      viaCompletion = true;
    }
    request.served(upstream.servedBy, upstream.endpoint, upstream.servedPrice);
    let count: number | undefined;
    try {
      if (!upstream.response.ok) throw await replicaError(upstream.response);
      const answer = (await upstream.response.json()) as TokenizeAnswer & ReceivedCompletion;
      count = viaCompletion ? answer.usage?.prompt_tokens : answer.count;
    } catch (error) {
      if (error instanceof AppError) throw error;
      throw new AppError("upstream_error", "the model's server sent an answer that is not JSON");
    } finally {
      upstream.release();
    }
    if (typeof count !== "number")
      throw new AppError("upstream_error", "the model's server did not count the prompt");
    // A count generates nothing: logged as a request of no tokens, so no quota or spend is charged.
    request.finish({ prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 });
    return { input_tokens: count };
  } catch (error) {
    request.finish(undefined, error instanceof AppError ? error : new AppError("internal", "internal error"));
    throw error;
  }
}
