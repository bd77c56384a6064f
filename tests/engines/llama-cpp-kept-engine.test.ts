// The worker's engine code in this process (loadModel, buildGeneration, generate) on the tiny random model: a
// sequence kept between turns answers what a cleared one answers, reports the prompt tokens it really reused,
// and concurrent generations share decodes.
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { BatchItem, LlamaContextSequence } from "node-llama-cpp";
import { bySequenceId } from "#adapters/engines/llama.cpp/batching.ts";
import { readConfig } from "#adapters/engines/llama.cpp/config.ts";
import {
  buildGeneration,
  type GenerationOutcome,
  generate,
  type PromptRenderer,
} from "#adapters/engines/llama.cpp/generate.ts";
import { createLog } from "#adapters/engines/llama.cpp/log.ts";
import { TokenDescriber } from "#adapters/engines/llama.cpp/logprobs.ts";
import { type LoadedModel, loadModel } from "#adapters/engines/llama.cpp/model.ts";
import { parseChatRequest } from "#adapters/engines/llama.cpp/openai-shapes.ts";
import { sharedPrefix } from "#adapters/engines/llama.cpp/sequences.ts";
import { writeTinyGguf } from "#scripts/make-tiny-gguf.ts";

type Message = { role: "system" | "user" | "assistant"; content: string };

// Five turns, twice each, on a loaded 2-core machine can pass bun's 5 s default.
setDefaultTimeout(60_000);

let dir: string;
let loaded: LoadedModel;
let renderer: PromptRenderer;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "llama-kept-"));
  const modelPath = join(dir, "tiny.gguf");
  writeTinyGguf(modelPath, { eogBias: -30, contextLength: 2048 });
  loaded = await loadModel(
    readConfig({ MODEL_PATH: modelPath, THREADS: "1", PARALLEL: "4", CONTEXT_SIZE: "2048" }),
    createLog("silent"),
  );
  renderer = {
    llama: loaded.llama,
    model: loaded.model,
    tokens: new TokenDescriber(loaded.model),
    chatWrapper: loaded.chatWrapper,
    contextSize: loaded.contextSize,
  };
});

afterAll(async () => {
  await loaded?.dispose();
  rmSync(dir, { recursive: true, force: true });
});

function sequence(index: number): LlamaContextSequence {
  const found = loaded.sequences[index];
  if (!found) throw new Error(`no sequence ${index}`);
  return found;
}

async function built(messages: Message[], extra: Record<string, unknown> = {}) {
  const parsed = parseChatRequest({ messages, max_tokens: 24, temperature: 0, seed: 7, ...extra });
  if (!parsed.ok) throw new Error(parsed.error.error.message);
  const input = await buildGeneration(parsed.value, renderer);
  if (!input.ok) throw new Error(input.error.error.message);
  return input.value;
}

async function ask(on: LlamaContextSequence, messages: Message[]): Promise<GenerationOutcome> {
  return generate(on, renderer, await built(messages), {
    signal: new AbortController().signal,
    lockstep: loaded.lockstep,
  });
}

const system = (name: string) =>
  `${name}: you are a patient assistant. Answer every question about the world in plain words, hello.`;

test("a kept sequence answers exactly what a cleared one answers, turn after turn, at temperature 0", async () => {
  const kept = sequence(0);
  const cleared = sequence(1);
  await kept.clearHistory();
  const messages: Message[] = [{ role: "system", content: system("Kept") }];
  for (let turn = 1; turn <= 5; turn++) {
    messages.push({ role: "user", content: `Question ${turn}: and then what happened in the world?` });
    await cleared.clearHistory();
    const fresh = await ask(cleared, messages);
    const reused = await ask(kept, messages);
    expect(reused.text).toBe(fresh.text);
    expect(reused.completionTokens).toBe(24);
    // The same tokens: the kept sequence now holds exactly what the cleared one holds.
    expect(kept.contextTokens).toEqual(cleared.contextTokens);
    expect(fresh.cachedTokens).toBe(0);
    if (turn === 1) expect(reused.cachedTokens).toBe(0);
    else expect(reused.cachedTokens).toBeGreaterThan(reused.promptTokens / 2);
    messages.push({ role: "assistant", content: reused.text });
  }
});

test("cached tokens are the prompt tokens the engine kept: the shared prefix, none evaluated again", async () => {
  const on = sequence(2);
  await on.clearHistory();
  const messages: Message[] = [
    { role: "system", content: system("Counted") },
    { role: "user", content: "Tell me about the world." },
  ];
  const first = await ask(on, messages);
  expect(first.cachedTokens).toBe(0);
  messages.push({ role: "assistant", content: first.text }, { role: "user", content: "And then?" });
  const second = await built(messages);
  // What the sequence holds against what turn 2 renders: LlamaChat keeps the common prefix (and always
  // evaluates the prompt's last token, for the logits of the first answer token).
  const expected = Math.min(sharedPrefix(on.contextTokens, second.prompt), second.prompt.length - 1);
  expect(expected).toBeGreaterThanOrEqual(first.promptTokens);
  const meter = on.tokenMeter.getState();
  const outcome = await generate(on, renderer, second, {
    signal: new AbortController().signal,
    lockstep: loaded.lockstep,
  });
  expect(outcome.cachedTokens).toBe(expected);
  // The engine's own meter: the prompt tokens decoded without logits are exactly the ones not reused
  // (the last prompt token is decoded with logits, as are the answer's tokens).
  expect(on.tokenMeter.diff(meter).usedInputTokens).toBe(second.prompt.length - expected - 1);
});

test("concurrent generations decode in shared batches", async () => {
  const streams = [sequence(0), sequence(1), sequence(2), sequence(3)];
  await Promise.all(streams.map((s) => s.clearHistory()));
  const before = { ...loaded.batchStats };
  const outcomes = await Promise.all(
    streams.map((on, i) =>
      ask(on, [{ role: "user", content: `Story ${i}: tell me a long story about the world.` }]),
    ),
  );
  for (const outcome of outcomes) expect(outcome.completionTokens).toBe(24);
  const batches = loaded.batchStats.batches - before.batches;
  const items = loaded.batchStats.items - before.items;
  // 4 prompts and 4 × 24 steps; in step, about 25 batches of 4. Out of step (before) it was 1 to 3.4 a batch.
  expect(items / batches).toBeGreaterThan(3.5);
});

test("a batch is ordered by sequence id, so llama.cpp decodes it as one", () => {
  const text = loaded.model.tokenize("hello world and more");
  const tokens = [text.slice(0, 1), text.slice(1, 2), text.slice(2, 3), text.slice(3, 6)];
  expect(tokens[3]).toHaveLength(3);
  const items: BatchItem[] = tokens.map((t) => ({ tokens: t, logits: [], evaluationPriority: 5 }));
  const queue = [2, 0, 3, 1].map((sequenceId, i) => ({ sequenceId, tokens: tokens[i] }));
  const fakeContext = { _queuedDecodes: queue };
  const strategy = bySequenceId(() => fakeContext);
  const out = strategy({ items, size: 4 });
  expect(out.map((p) => queue[items.indexOf(p.item)]?.sequenceId)).toEqual([0, 1, 2, 3]);
  expect(out.reduce((sum, p) => sum + p.processAmount, 0)).toBe(4);
  // Room left after the single steps goes to the prompt.
  const roomy = strategy({ items, size: 10 });
  expect(roomy.find((p) => p.item === items[3])?.processAmount).toBe(3);
});
