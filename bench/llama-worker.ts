// Tokens per second of the llama.cpp worker on the tiny random GGUF, at 1 and at 8 concurrent streams.
//
//   bun bench/llama-worker.ts            (THREADS=2 PARALLEL=8 TOKENS=128 ROUNDS=3 by default)
//   THREADS=1 bun bench/llama-worker.ts
//
// The model never stops early (eogBias -30), so every stream produces exactly TOKENS tokens. The figure is
// what a client sees: tokens received over wall time from the first request to the last [DONE].
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { localCommand } from "#adapters/engines/llama.cpp/index.ts";
import { writeTinyGguf } from "#scripts/make-tiny-gguf.ts";

const threads = Number(process.env.THREADS ?? 2);
const parallel = Number(process.env.PARALLEL ?? 8);
const tokens = Number(process.env.TOKENS ?? 128);
const rounds = Number(process.env.ROUNDS ?? 3);

const dir = mkdtempSync(join(tmpdir(), "llama-bench-"));
const modelPath = join(dir, "tiny.gguf");
writeTinyGguf(modelPath, { eogBias: -30, contextLength: 1024 });
const { cmd, env } = localCommand({
  modelPath,
  port: 0,
  modelName: "tiny",
  threads,
  parallel,
  contextSize: 1024,
});
const worker = Bun.spawn(cmd, {
  env: { ...process.env, LOG_LEVEL: "error", ...env },
  stdout: "pipe",
  stderr: "inherit",
});

try {
  const line = await readLine(worker.stdout);
  const ready = JSON.parse(line) as { event: string; port?: number; reason?: string };
  if (ready.event !== "ready") throw new Error(`worker did not start: ${line}`);
  const url = `http://127.0.0.1:${ready.port}/v1/chat/completions`;

  await stream(url, 8); // warm-up
  console.log(
    `llama.cpp worker, tiny random GGUF, THREADS=${threads} PARALLEL=${parallel}, ${tokens} tokens a stream`,
  );
  for (const concurrency of [1, 8]) {
    const rates: number[] = [];
    let firstTokenMs = 0;
    for (let r = 0; r < rounds; r++) {
      const started = performance.now();
      const results = await Promise.all(Array.from({ length: concurrency }, () => stream(url, tokens)));
      const seconds = (performance.now() - started) / 1000;
      const total = results.reduce((sum, res) => sum + res.completionTokens, 0);
      rates.push(total / seconds);
      firstTokenMs += results.reduce((sum, res) => sum + res.firstTokenMs, 0) / results.length / rounds;
    }
    rates.sort((a, b) => a - b);
    const median = rates[Math.floor(rates.length / 2)] ?? 0;
    console.log(
      `${concurrency} stream(s): ${median.toFixed(0)} tokens/s in all (median of ${rounds}; ` +
        `${(median / concurrency).toFixed(0)} per stream), first token after ${firstTokenMs.toFixed(1)} ms`,
    );
  }
} finally {
  worker.kill("SIGTERM");
  await worker.exited;
  rmSync(dir, { recursive: true, force: true });
}

async function stream(
  url: string,
  maxTokens: number,
): Promise<{ completionTokens: number; firstTokenMs: number }> {
  const started = performance.now();
  const res = await fetch(url, {
    method: "POST",
    body: JSON.stringify({
      messages: [{ role: "user", content: "Tell me a long story." }],
      max_tokens: maxTokens,
      stream: true,
      stream_options: { include_usage: true },
    }),
  });
  if (!res.ok || !res.body) throw new Error(`HTTP ${res.status}`);
  let firstTokenMs = 0;
  let completionTokens = 0;
  let buffer = "";
  const decoder = new TextDecoder();
  const reader = res.body.getReader();
  for (let read = await reader.read(); !read.done; read = await reader.read()) {
    buffer += decoder.decode(read.value, { stream: true });
    let end = buffer.indexOf("\n\n");
    while (end >= 0) {
      const data = buffer.slice(6, end);
      buffer = buffer.slice(end + 2);
      end = buffer.indexOf("\n\n");
      if (data === "[DONE]") continue;
      const chunk = JSON.parse(data) as {
        choices: { delta: { content?: string } }[];
        usage?: { completion_tokens: number };
      };
      if (!firstTokenMs && chunk.choices[0]?.delta.content) firstTokenMs = performance.now() - started;
      if (chunk.usage) completionTokens = chunk.usage.completion_tokens;
    }
  }
  return { completionTokens, firstTokenMs };
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
