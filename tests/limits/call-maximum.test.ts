// What a call reserves at admission (services/inference/call-maximum.ts): its prompt and max_tokens,
// or what the deployment's context leaves, never more than the context.
import { expect, test } from "bun:test";
import { DEFAULT_CONTEXT_SIZE } from "#adapters/engines/llama.cpp/config.ts";
import {
  contextTokensOf,
  defaultCompletionReservation,
  maximumTokens,
} from "#services/inference/call-maximum.ts";

test("the context comes from context_size or max_model_len; a llama.cpp worker without one has the default", () => {
  expect(contextTokensOf("llama.cpp", { context_size: 4096 })).toBe(4096);
  expect(contextTokensOf("vllm", { max_model_len: 32_768 })).toBe(32_768);
  expect(contextTokensOf("llama.cpp", {})).toBe(DEFAULT_CONTEXT_SIZE);
  expect(contextTokensOf("openai-compatible", { endpoints: ["http://x"] })).toBeUndefined();
  expect(contextTokensOf("vllm", { max_model_len: "big" })).toBeUndefined();
});

test("the call's maximum", () => {
  // max_tokens, within the context.
  expect(maximumTokens({ promptTokens: 100, maxTokens: 50 }, 1000)).toBe(150);
  expect(maximumTokens({ promptTokens: 100, maxTokens: 5000 }, 1000)).toBe(1000);
  // No max_tokens: the context's room.
  expect(maximumTokens({ promptTokens: 100 }, 1000)).toBe(1000);
  // No context known: the documented default completion.
  expect(maximumTokens({ promptTokens: 100 }, undefined)).toBe(100 + defaultCompletionReservation);
  expect(maximumTokens({ promptTokens: 100, maxTokens: 7 }, undefined)).toBe(107);
  // A prompt estimated past the context is charged whole (the replica refuses it anyway).
  expect(maximumTokens({ promptTokens: 1500 }, 1000)).toBe(1500);
  // Embeddings and token counting: nothing beyond the prompt.
  expect(maximumTokens({ promptTokens: 100, maxTokens: 0 }, 1000)).toBe(100);
});
