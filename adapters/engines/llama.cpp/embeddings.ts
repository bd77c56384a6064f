// OpenAI's POST /v1/embeddings on the worker: the model's embedding of each input, from an embedding
// context made on first use (a chat-only deployment never pays for it). llama.cpp embeds one text at a
// time per context, so requests queue on one chain; each waits only for the texts ahead of it.

import type { LlamaEmbeddingContext, LlamaModel } from "node-llama-cpp";
import type { EmbeddingsResponse } from "#contracts/openai/embeddings.ts";
import type { OpenAIError } from "#contracts/openai/error.ts";
import { propertyOf } from "#core/error-chain.ts";
import { invalidRequest } from "./openai-shapes.ts";

export interface EmbeddingRequest {
  input: string[];
  encodingFormat: "float" | "base64";
}

/** Inputs one request may carry (OpenAI allows 2,048; a CPU worker is slower, so fewer). */
export const maxInputs = 256;

export function parseEmbeddingRequest(
  body: unknown,
): { ok: true; value: EmbeddingRequest } | { ok: false; error: OpenAIError } {
  if (typeof body !== "object" || body === null)
    return { ok: false, error: invalidRequest("the body must be a JSON object") };
  const input = propertyOf(body, "input");
  const format = propertyOf(body, "encoding_format");
  const list: unknown[] | undefined =
    typeof input === "string" ? [input] : Array.isArray(input) ? input : undefined;
  if (list === undefined || list.length === 0 || !list.every((x): x is string => typeof x === "string"))
    return {
      ok: false,
      error: invalidRequest("input must be a string or a non-empty array of strings", "input"),
    };
  if (list.length > maxInputs)
    return { ok: false, error: invalidRequest(`input holds more than ${maxInputs} texts`, "input") };
  if (list.some((x) => x === ""))
    return { ok: false, error: invalidRequest("input holds an empty string", "input") };
  if (format !== undefined && format !== "float" && format !== "base64")
    return {
      ok: false,
      error: invalidRequest('encoding_format must be "float" or "base64"', "encoding_format"),
    };
  return {
    ok: true,
    value: { input: list, encodingFormat: format === "base64" ? "base64" : "float" },
  };
}

export interface Embedder {
  embed(texts: string[]): Promise<{ vectors: Float32Array[]; tokens: number }>;
}

export function createEmbedder(
  model: LlamaModel,
  options: { contextSize: number; threads?: number | undefined },
): Embedder {
  let context: Promise<LlamaEmbeddingContext> | undefined;
  let queue: Promise<unknown> = Promise.resolve();
  return {
    embed(texts) {
      const contextSize = Math.min(options.contextSize, model.trainContextSize);
      const opened =
        context ??
        model.createEmbeddingContext({
          contextSize,
          ...(options.threads ? { threads: options.threads } : {}),
        });
      context = opened;
      const run = queue.then(async () => {
        const ctx = await opened;
        const vectors: Float32Array[] = [];
        let tokens = 0;
        for (const text of texts) {
          // A text longer than the context is cut to its beginning, as sentence-transformers and TEI's
          // `truncate` do, rather than refused: an indexer sends passages of any length.
          // Room for the model's own start and end tokens: the context takes fewer than contextSize in all.
          const tokenized = model.tokenize(text).slice(0, contextSize - 4);
          tokens += tokenized.length;
          vectors.push(Float32Array.from((await ctx.getEmbeddingFor(tokenized)).vector));
        }
        return { vectors, tokens };
      });
      queue = run.catch(() => {});
      return run;
    },
  };
}

export function embeddingList(
  model: string,
  request: EmbeddingRequest,
  vectors: Float32Array[],
  tokens: number,
): EmbeddingsResponse {
  return {
    object: "list",
    data: vectors.map((vector, index) => ({
      object: "embedding",
      index,
      embedding:
        request.encodingFormat === "base64"
          ? Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength).toString("base64")
          : Array.from(vector),
    })),
    model,
    usage: { prompt_tokens: tokens, total_tokens: tokens },
  };
}
