// POST /v1/embeddings through the lifecycle's first steps (key, context, rate limits, quota), to a
// ready replica of the deployment, and logged like a chat completion. Guardrails and templates shape
// conversations, not texts to embed, so they do not apply here.
// `dimensions` and `encoding_format` are the gateway's, for every engine alike: the replica is asked for
// floats, each vector is cut to `dimensions` and scaled back to length 1 (what OpenAI's shortened
// embeddings are), or refused with 400 naming `dimensions` when the model's vectors are shorter; then
// written as numbers or as base64 of little-endian float32, as OpenAI's `base64` is.

import { replicaError } from "#adapters/upstream/refusal.ts";
import type { Usage } from "#contracts/openai/chat.ts";
import type { EmbeddingsRequest, EmbeddingsResponse } from "#contracts/openai/embeddings.ts";
import { AppError, invalid } from "#core/errors.ts";
import { startRequest } from "./admission.ts";
import type { AnswerMeta } from "./answer-meta.ts";
import { estimateTokens } from "./messages.ts";
import { sendRouted } from "./routing.ts";
import type { InferenceRuntime } from "./runtime.ts";

/** What a replica answers (OpenAI's shape); each vector as numbers, or base64 from an engine that chose it. */
interface ReplicaEmbeddings {
  data?: { index?: number; embedding?: number[] | string }[];
  usage?: { prompt_tokens?: number };
}

export async function createEmbeddings(
  runtime: InferenceRuntime,
  input: {
    apiKey: string | undefined;
    body: EmbeddingsRequest;
    requestId: string;
    signal: AbortSignal;
    /** Filled with what the answer says beside its body (a refusal's too): answer-meta.ts. */
    meta: AnswerMeta;
    incoming?: Headers | undefined;
  },
): Promise<EmbeddingsResponse> {
  const { encoding_format: encoding, dimensions, ...body } = input.body;
  const texts = typeof body.input === "string" ? [body.input] : body.input;
  const promptTokens = texts.reduce((sum, text) => sum + estimateTokens(text), 0);
  const request = startRequest(runtime, {
    requestId: input.requestId,
    model: body.model,
    operation: "embeddings",
    stream: false,
    answer: input.meta,
    incoming: input.incoming,
  });
  try {
    // No completion: the input's tokens are the call's maximum.
    const context = await request.admit({ apiKey: input.apiKey, promptTokens, maxTokens: 0 });
    const upstream = await sendRouted(runtime, request, context, {
      path: "/embeddings",
      body: (deploymentName) => JSON.stringify({ ...body, model: deploymentName, encoding_format: "float" }),
      signal: input.signal,
      firstByteTimeoutMs: runtime.timeouts.firstByteMs,
    });
    request.served(upstream.servedBy, upstream.endpoint, upstream.servedPrice);
    let answer: ReplicaEmbeddings;
    try {
      if (!upstream.response.ok) throw await replicaError(upstream.response);
      answer = await upstream.response.json();
    } catch (error) {
      if (error instanceof AppError) throw error;
      throw new AppError("upstream_error", "the model's server sent an answer that is not JSON");
    } finally {
      upstream.release();
    }
    const data = (answer.data ?? []).map((item, position) => {
      const vector = shortened(vectorOf(item.embedding), dimensions);
      return {
        object: "embedding" as const,
        index: item.index ?? position,
        embedding: written(vector, encoding),
      };
    });
    const tokens = answer.usage?.prompt_tokens ?? promptTokens;
    const usage: Usage = { prompt_tokens: tokens, completion_tokens: 0, total_tokens: tokens };
    request.finish(usage);
    return {
      object: "list",
      data,
      model: body.model,
      usage: { prompt_tokens: tokens, total_tokens: tokens },
    };
  } catch (error) {
    request.finish(undefined, error instanceof AppError ? error : new AppError("internal", "internal error"));
    throw error;
  }
}

// Vectors are held as doubles, so a float answer passes the replica's numbers on unchanged; only base64
// (OpenAI's little-endian float32) rounds them.
function vectorOf(embedding: number[] | string | undefined): Float64Array {
  if (typeof embedding === "string") {
    const bytes = Buffer.from(embedding, "base64");
    // A copy: the decoded bytes need not sit at an offset a Float32Array may start at.
    return Float64Array.from(new Float32Array(new Uint8Array(bytes).buffer, 0, Math.floor(bytes.length / 4)));
  }
  if (!Array.isArray(embedding)) throw new AppError("upstream_error", "the model's server sent no embedding");
  return Float64Array.from(embedding);
}

/** The first `dimensions` values scaled to length 1; the whole vector when `dimensions` is not given. */
function shortened(vector: Float64Array, dimensions: number | undefined): Float64Array {
  if (dimensions === undefined || dimensions === vector.length) return vector;
  if (dimensions > vector.length) {
    throw invalid(
      "dimensions",
      `is ${dimensions}, but this model's embeddings have ${vector.length} dimensions`,
    );
  }
  const cut = vector.slice(0, dimensions);
  let squares = 0;
  for (const x of cut) squares += x * x;
  const norm = Math.sqrt(squares);
  return norm > 0 ? cut.map((x) => x / norm) : cut;
}

function written(vector: Float64Array, encoding: EmbeddingsRequest["encoding_format"]): number[] | string {
  if (encoding !== "base64") return Array.from(vector);
  const single = Float32Array.from(vector);
  return Buffer.from(single.buffer).toString("base64");
}
