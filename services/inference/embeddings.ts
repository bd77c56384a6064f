// POST /v1/embeddings through the lifecycle's first steps (key, context, rate limits, quota), to a
// ready replica of the deployment, and logged like a chat completion. Guardrails and templates shape
// conversations, not texts to embed, so they do not apply here.
import { replicaError } from "#adapters/upstream/refusal.ts";
import type { Usage } from "#adapters/upstream/sse-relay.ts";
import { AppError } from "../errors.ts";
import { startRequest } from "./admission.ts";
import { estimateTokens } from "./messages.ts";
import { sendRouted } from "./routing.ts";
import type { InferenceRuntime } from "./runtime.ts";

export interface EmbeddingsBody {
  model: string;
  input: string | string[];
  [key: string]: unknown;
}

export async function createEmbeddings(
  runtime: InferenceRuntime,
  input: {
    apiKey: string | undefined;
    body: EmbeddingsBody;
    requestId: string;
    signal: AbortSignal;
    headers: Record<string, string | number>;
    incoming?: Headers | undefined;
  },
): Promise<Record<string, unknown>> {
  const { body } = input;
  const texts = typeof body.input === "string" ? [body.input] : body.input;
  const promptTokens = texts.reduce((sum, text) => sum + estimateTokens(text), 0);
  const request = startRequest(runtime, {
    requestId: input.requestId,
    model: body.model,
    operation: "embeddings",
    stream: false,
    headers: input.headers,
    incoming: input.incoming,
  });
  try {
    // No completion: the input's tokens are the call's maximum.
    const context = await request.admit({ apiKey: input.apiKey, promptTokens, maxTokens: 0 });
    const upstream = await sendRouted(runtime, request, context, {
      path: "/embeddings",
      body: (deploymentName) => JSON.stringify({ ...body, model: deploymentName }),
      signal: input.signal,
      firstByteTimeoutMs: runtime.timeouts.firstByteMs,
    });
    request.served(upstream.servedBy);
    let answer: Record<string, unknown>;
    try {
      if (!upstream.response.ok) throw await replicaError(upstream.response);
      answer = (await upstream.response.json()) as Record<string, unknown>;
    } catch (error) {
      if (error instanceof AppError) throw error;
      throw new AppError("upstream_error", "the model's server sent an answer that is not JSON");
    } finally {
      upstream.release();
    }
    answer.model = body.model;
    const reported = answer.usage as { prompt_tokens?: number } | undefined;
    const tokens = reported?.prompt_tokens ?? promptTokens;
    const usage: Usage = { prompt_tokens: tokens, completion_tokens: 0, total_tokens: tokens };
    answer.usage = { prompt_tokens: tokens, total_tokens: tokens };
    request.finish(usage);
    return answer;
  } catch (error) {
    request.finish(undefined, error instanceof AppError ? error : new AppError("internal", "internal error"));
    throw error;
  }
}
