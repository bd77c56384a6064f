// The llama.cpp worker on a random-weight GGUF from scripts/make-tiny-gguf.ts (issue #29's: 384 wide, 4 blocks,
// 6 heads, 2 KV heads, 1024 feed-forward, 4096 context; 26 MB), two measurements, ROUNDS times, interleaved:
//
// - streams: total tokens/s with 1, 4 and 8 concurrent 128-token streams through the worker's HTTP API (what a
//   client sees: tokens received over wall time from the first request to the last [DONE]);
// - turns: time to first token of each turn of a 10-turn conversation (turn 1 about 1,580 prompt tokens, then
//   about 95 new tokens a turn) through the worker's HTTP API, beside the same engine code (buildGeneration +
//   generate on one sequence kept between turns) in this process. Each round is a new conversation.
//
//   bun run bench llama-worker                  (THREADS=1 PARALLEL=4 CONTEXT_SIZE=4096 ROUNDS=3, MODE=all)
//   MODE=streams bun run bench llama-worker     (or MODE=turns; STREAMS=1,4,8 TOKENS=128 TURNS=10)
//   WORKER=/elsewhere/adapters/engines/llama.cpp/worker.ts MODE=streams bun run bench llama-worker
//                                               (another checkout's worker, e.g. before a change)
//
// The model never stops early (eogBias -30), so every answer has exactly max_tokens tokens. Medians are printed
// with the load average before and after: the machine may be shared.
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { Lockstep } from "#adapters/engines/llama.cpp/batching.ts";
import { readConfig } from "#adapters/engines/llama.cpp/config.ts";
import { buildGeneration, generate } from "#adapters/engines/llama.cpp/generate.ts";
import { localCommand } from "#adapters/engines/llama.cpp/index.ts";
import { createLog } from "#adapters/engines/llama.cpp/log.ts";
import { TokenDescriber } from "#adapters/engines/llama.cpp/logprobs.ts";
import { loadModel } from "#adapters/engines/llama.cpp/model.ts";
import { parseChatRequest } from "#adapters/engines/llama.cpp/openai-shapes.ts";
import { writeTinyGguf } from "#scripts/make-tiny-gguf.ts";
import { benchPrompt } from "./prompts.ts";
import { parseWorkerLine, streamChunks } from "./wire.ts";

const threads = Number(process.env.THREADS ?? 1);
const parallel = Number(process.env.PARALLEL ?? 4);
const contextSize = Number(process.env.CONTEXT_SIZE ?? 4096);
const tokens = Number(process.env.TOKENS ?? 128);
const rounds = Number(process.env.ROUNDS ?? 3);
const turns = Number(process.env.TURNS ?? 10);
const streamCounts = (process.env.STREAMS ?? "1,4,8").split(",").map(Number);
const mode = process.env.MODE ?? "all";

/** Tokens an answer has in the conversation; with the next user message about 95 new tokens a turn. */
const ANSWER_TOKENS = 48;

type Message = { role: "system" | "user" | "assistant"; content: string };

const dir = mkdtempSync(join(tmpdir(), "llama-bench-"));
const modelPath = join(dir, "tiny.gguf");
writeTinyGguf(modelPath, {
  eogBias: -30,
  embeddingLength: 384,
  blockCount: 4,
  headCount: 6,
  headCountKv: 2,
  feedForwardLength: 1024,
  contextLength: 4096,
});
const { cmd, env } = localCommand({ modelPath, port: 0, modelName: "tiny", threads, parallel, contextSize });
if (process.env.WORKER) cmd[1] = process.env.WORKER;
const worker = Bun.spawn(cmd, {
  env: { ...process.env, LOG_LEVEL: "error", ...env },
  stdout: "pipe",
  stderr: "inherit",
});

try {
  const line = await readLine(worker.stdout);
  const ready = parseWorkerLine(line);
  if (ready.event !== "ready") throw new Error(`worker did not start: ${line}`);
  const url = `http://127.0.0.1:${ready.port}/v1/chat/completions`;
  const inProcess = mode === "streams" ? undefined : await inProcessEngine();

  await stream(url, [{ role: "user", content: "warm up" }], 8);
  const loadBefore = loadavg();
  console.log(
    `llama.cpp worker, tiny random GGUF (384x4, 26 MB), THREADS=${threads} PARALLEL=${parallel} ` +
      `CONTEXT_SIZE=${contextSize}, ${rounds} rounds interleaved, medians`,
  );
  const rates = new Map<number, number[]>(streamCounts.map((n) => [n, []]));
  const viaWorker: number[][] = [];
  const kept: number[][] = [];
  const cached: number[][] = [];
  const promptSizes: number[] = [];
  for (let round = 0; round < rounds; round++) {
    if (mode !== "turns")
      for (const concurrency of streamCounts) {
        const started = performance.now();
        const results = await Promise.all(
          Array.from({ length: concurrency }, (_, i) =>
            stream(url, [{ role: "user", content: `Story ${round}.${i}: tell me a long story.` }], tokens),
          ),
        );
        const total = results.reduce((sum, res) => sum + res.completionTokens, 0);
        rates.get(concurrency)?.push(total / ((performance.now() - started) / 1000));
      }
    if (inProcess) {
      const worked = await conversation(round, (messages) => stream(url, messages, ANSWER_TOKENS));
      viaWorker.push(worked.ttft);
      cached.push(worked.cached);
      promptSizes.splice(0, promptSizes.length, ...worked.prompt);
      kept.push((await conversation(round, inProcess)).ttft);
    }
  }
  if (mode !== "turns") {
    const one = median(rates.get(streamCounts[0] ?? 1) ?? []);
    for (const [concurrency, list] of rates) {
      const rate = median(list);
      console.log(
        `${concurrency} stream(s) of ${tokens} tokens: ${rate.toFixed(0)} tokens/s in all ` +
          `(${(rate / one).toFixed(2)}x ${streamCounts[0]}; runs ${list.map((r) => r.toFixed(0)).join(", ")})`,
      );
    }
  }
  if (inProcess) {
    console.log("turn | prompt tokens | cached | first token via worker HTTP | in process, kept | ratio");
    for (let turn = 0; turn < turns; turn++) {
      const http = median(viaWorker.map((r) => r[turn] ?? 0));
      const local = median(kept.map((r) => r[turn] ?? 0));
      console.log(
        `${turn + 1} | ${promptSizes[turn]} | ${median(cached.map((r) => r[turn] ?? 0))} | ` +
          `${http.toFixed(0)} ms | ${local.toFixed(0)} ms | ${(http / local).toFixed(2)}x`,
      );
    }
    await inProcess.dispose();
  }
  console.log(`load average before ${fmt(loadBefore)}, after ${fmt(loadavg())}`);
} finally {
  worker.kill("SIGTERM");
  await worker.exited;
  rmSync(dir, { recursive: true, force: true });
}

interface Turn {
  firstTokenMs: number;
  completionTokens: number;
  promptTokens: number;
  cachedTokens: number;
  text: string;
}

/** A conversation of `turns` turns; each round's system prompt differs from the first token on. */
async function conversation(
  round: number,
  ask: (messages: Message[]) => Promise<Turn>,
): Promise<{ ttft: number[]; cached: number[]; prompt: number[] }> {
  const system = `Round ${round} ${Date.now()}. ${benchPrompt.repeat(3).slice(0, 2040)}`;
  const messages: Message[] = [{ role: "system", content: system }];
  const out: { ttft: number[]; cached: number[]; prompt: number[] } = { ttft: [], cached: [], prompt: [] };
  for (let turn = 0; turn < turns; turn++) {
    messages.push({ role: "user", content: `Question ${turn + 1}: and what happened next, then?` });
    const answer = await ask(messages);
    out.ttft.push(answer.firstTokenMs);
    out.cached.push(answer.cachedTokens);
    out.prompt.push(answer.promptTokens);
    messages.push({ role: "assistant", content: answer.text });
  }
  return out;
}

/** The worker's engine code in this process, on one sequence kept between requests. */
async function inProcessEngine() {
  const config = readConfig({
    MODEL_PATH: modelPath,
    THREADS: String(threads),
    PARALLEL: "1",
    CONTEXT_SIZE: String(contextSize),
  });
  const loaded = await loadModel(config, createLog("silent"));
  const renderer = {
    llama: loaded.llama,
    model: loaded.model,
    tokens: new TokenDescriber(loaded.model),
    chatWrapper: loaded.chatWrapper,
    contextSize: loaded.contextSize,
  };
  const lockstep = new Lockstep();
  const sequence = loaded.sequences[0];
  if (!sequence) throw new Error("no sequence");
  const ask = async (messages: Message[]): Promise<Turn> => {
    const started = performance.now();
    const parsed = parseChatRequest({ messages, max_tokens: ANSWER_TOKENS, temperature: 0 });
    if (!parsed.ok) throw new Error(parsed.error.error.message);
    const built = await buildGeneration(parsed.value, renderer);
    if (!built.ok) throw new Error(built.error.error.message);
    let firstTokenMs = 0;
    const outcome = await generate(sequence, renderer, built.value, {
      signal: new AbortController().signal,
      lockstep,
      onText: (text) => {
        if (!firstTokenMs && text) firstTokenMs = performance.now() - started;
      },
    });
    return { ...outcome, firstTokenMs };
  };
  return Object.assign(ask, { dispose: () => loaded.dispose() });
}

async function stream(url: string, messages: Message[], maxTokens: number): Promise<Turn> {
  const started = performance.now();
  const res = await fetch(url, {
    method: "POST",
    body: JSON.stringify({
      messages,
      max_tokens: maxTokens,
      temperature: 0,
      stream: true,
      stream_options: { include_usage: true },
    }),
  });
  if (!res.ok || !res.body) throw new Error(`HTTP ${res.status}: ${await res.text()}`);
  const turn: Turn = { firstTokenMs: 0, completionTokens: 0, promptTokens: 0, cachedTokens: 0, text: "" };
  for await (const chunk of streamChunks(res.body)) {
    const content = chunk.choices?.[0]?.delta?.content;
    if (content) {
      if (!turn.firstTokenMs) turn.firstTokenMs = performance.now() - started;
      turn.text += content;
    }
    if (chunk.usage) {
      turn.completionTokens = chunk.usage.completion_tokens;
      turn.promptTokens = chunk.usage.prompt_tokens;
      turn.cachedTokens = chunk.usage.prompt_tokens_details?.cached_tokens ?? 0;
    }
  }
  return turn;
}

function median(list: number[]): number {
  const sorted = [...list].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

function fmt(load: number[]): string {
  return load.map((n) => n.toFixed(2)).join(" ");
}

async function readLine(stdout: ReadableStream<Uint8Array>): Promise<string> {
  const reader = stdout.getReader();
  const decoder = new TextDecoder();
  let text = "";
  while (!text.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
  }
  reader.releaseLock();
  return text.split("\n")[0] ?? "";
}
