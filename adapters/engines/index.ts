// The engines this installation can run, keyed by the EngineId union. Only engines that exist are
// listed: a deployment naming another one is refused with 400 `engine`.
import { wires } from "#adapters/upstream/wire/index.ts";
import type { EngineId } from "#core/domain.ts";
import type { Engine } from "./engine.ts";
import { llamaCppEngine } from "./llama.cpp/index.ts";
import { openaiCompatibleEngine } from "./openai-compatible/index.ts";
import { sglangEngine } from "./sglang/index.ts";
import { tgiEngine } from "./tgi/index.ts";
import { vllmEngine } from "./vllm/index.ts";

export const engines: { readonly [K in EngineId]?: Engine } = {
  "llama.cpp": llamaCppEngine,
  vllm: vllmEngine,
  sglang: sglangEngine,
  tgi: tgiEngine,
  "openai-compatible": openaiCompatibleEngine,
  // Hosted APIs of another wire format: nothing runs; listed once this build has their wire adapter.
  ...(wires.anthropic ? { anthropic: { id: "anthropic" } } : {}),
  ...(wires.gemini ? { gemini: { id: "gemini" } } : {}),
};
