// Seconds from deploy to RUNNING, and a llama.cpp worker's tokens per second at 1 and 8 concurrent
// streams, through the replica's own endpoint. Runs the platform in this process on a fresh DATA_DIR
// with the tiny GGUF model (or --model <file.gguf>).
//
//   bun bench/deploy-and-tokens.ts [--model path.gguf] [--max-tokens 64] [--threads N]
import { dirname, join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { Type as T } from "@sinclair/typebox";
import OpenAI from "openai";
import { at } from "#scripts/checked.ts";
import { writeTinyGguf } from "#scripts/make-tiny-gguf.ts";
import { startBenchPlatform } from "./in-process-platform.ts";

const { values } = parseArgs({
  options: {
    model: { type: "string" },
    "max-tokens": { type: "string", default: "64" },
    threads: { type: "string" },
  },
});
const maxTokens = Number(values["max-tokens"]);
const bench = await startBenchPlatform({
  services: ["filtration", "orchestration"],
  // The tiny model is written into the data directory; --model may live anywhere: both are model directories.
  modelDirs: values.model ? [dirname(resolve(values.model))] : [],
  prefix: "llmp-bench-",
});
const { api, dataDir } = bench;
const orchestration = bench.url("orchestration");

let deploymentId: string | undefined;
let token = "";
try {
  token = await bench.signIn();
  const model = values.model ? resolve(values.model) : join(dataDir, "tiny.gguf");
  // A tiny model that never ends a reply early, so every stream yields max_tokens tokens.
  if (!values.model) writeTinyGguf(model, { eogBias: -30 });
  const poolId = await bench.createBenchPool(token);

  const started = performance.now();
  deploymentId = await bench.deployBench(
    poolId,
    model,
    { parallel: 8, ...(values.threads ? { threads: Number(values.threads) } : {}) },
    token,
  );
  let endpoint = "";
  for (;;) {
    const d = await api(
      T.Object({
        status: T.String(),
        failure_reason: T.Union([T.String(), T.Null()]),
        endpoints: T.Array(T.String()),
      }),
      orchestration,
      `/deployment/status/${deploymentId}`,
      undefined,
      token,
    );
    if (d.status === "RUNNING") {
      endpoint = at(d.endpoints, 0);
      break;
    }
    if (d.status === "FAILED") throw new Error(`deployment failed: ${d.failure_reason}`);
    await Bun.sleep(25);
  }
  const deploySeconds = (performance.now() - started) / 1000;
  console.log(`deploy -> RUNNING: ${deploySeconds.toFixed(2)} s`);

  const client = new OpenAI({ baseURL: endpoint, apiKey: "unused" });
  async function oneStream(): Promise<number> {
    const stream = await client.chat.completions.create({
      model: "bench",
      messages: [{ role: "user", content: "Tell me a story." }],
      max_tokens: maxTokens,
      temperature: 0.8,
      stream: true,
      stream_options: { include_usage: true },
    });
    let chunks = 0;
    let usage: number | undefined;
    for await (const chunk of stream) {
      if (chunk.choices[0]?.delta?.content) chunks++;
      if (chunk.usage) usage = chunk.usage.completion_tokens;
    }
    return usage ?? chunks;
  }

  await oneStream(); // warm-up
  const results: Record<
    string,
    { streams: number; tokens: number; seconds: number; tokens_per_second: number }
  > = {};
  for (const streams of [1, 8]) {
    const t0 = performance.now();
    const counts = await Promise.all(Array.from({ length: streams }, oneStream));
    const seconds = (performance.now() - t0) / 1000;
    const tokens = counts.reduce((a, b) => a + b, 0);
    results[streams] = { streams, tokens, seconds, tokens_per_second: tokens / seconds };
    console.log(
      `${streams} stream(s): ${tokens} tokens in ${seconds.toFixed(2)} s = ${(tokens / seconds).toFixed(1)} tokens/s` +
        ` (${(tokens / seconds / streams).toFixed(1)} per stream)`,
    );
  }
  console.log(
    JSON.stringify({ deploy_to_running_s: Number(deploySeconds.toFixed(2)), max_tokens: maxTokens, results }),
  );
} finally {
  if (deploymentId) await bench.terminate(deploymentId, token);
  await bench.stop();
}
