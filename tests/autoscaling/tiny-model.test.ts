// The real thing on this machine: a `local` deployment of the tiny GGUF model with real llama.cpp
// workers scales to zero, and a streamed and a plain chat completion sent at zero replicas both wait
// for the worker to start and are answered with tokens.

import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import OpenAI from "openai";
import type { POST as createKeyRoute } from "#routes/filtration/management/api-keys/index.ts";
import { buildHttpGateway } from "#routes/gateways.ts";
import type { POST as createPoolRoute } from "#routes/orchestration/deployment/createpool.ts";
import type { POST as deployRoute } from "#routes/orchestration/deployment/deploy.ts";
import { writeTinyGguf } from "#scripts/make-tiny-gguf.ts";
import { withInference } from "#server/compose.ts";
import { listen } from "#server/http/listen.ts";
import type { Listener } from "#server/start/platform.ts";
import { type Reconciler, startReconciler } from "#services/orchestration/reconciler.ts";
import { type OrchestrationTest, startOrchestrationTest } from "../orchestration/support.ts";
import { call } from "../support/app.ts";
import { inProcessInference } from "../support/inference.ts";
import { atZero, scaleDecisions, setAutoscaling, status, until } from "./support.ts";

let o: OrchestrationTest;
let reconciler: Reconciler;
let inference: Listener;
let apiKey: string;

beforeAll(async () => {
  o = await startOrchestrationTest();
  o.t.app = withInference(
    o.t.app,
    inProcessInference(o.t.app, {
      onDemand: () => reconciler.kick(),
    }),
  );
  inference = listen(o.t.app, "inference", 0, await buildHttpGateway(o.t.app, "inference"));
  reconciler = startReconciler(o.t.app, { intervalMs: 200, logPumpMs: 100, drainMs: 200 });
  apiKey = (
    await call<typeof createKeyRoute>(o.filtration, "POST", "/management/api-keys", {
      token: o.token,
      body: { name: "t" },
    })
  ).body.key;
}, 60_000);
afterAll(async () => {
  await reconciler.stop({ stopWorkers: true });
  await inference.stop(1000);
  await o.t.app.inference?.close();
  await o.t.close();
}, 30_000);

test("the tiny model from zero replicas: a stream and a plain request wait for the worker and get tokens", async () => {
  const model = join(o.t.config.dataDir, "tiny.gguf");
  writeTinyGguf(model);
  const pool = await call<typeof createPoolRoute>(o.orchestration, "POST", "/deployment/createpool", {
    token: o.token,
    body: { pool_name: "here", provider: "local" },
  });
  const deployed = await call<typeof deployRoute>(o.orchestration, "POST", "/deployment/deploy", {
    token: o.token,
    body: {
      pool_id: pool.body.pool_id,
      model_name: "tiny-zero",
      engine: "llama.cpp",
      image: "llama.cpp",
      inference_model: model,
      configuration: { threads: 1 },
    },
  });
  expect(deployed.status).toBe(201);
  const id = deployed.body.deployment_id;
  await until(o, id, (d) => d.status === "RUNNING", "RUNNING", 60_000);
  await setAutoscaling(o, id, {
    min_replicas: 0,
    max_replicas: 1,
    target_in_flight_per_replica: 4,
    scale_down_delay_s: 0.5,
    cold_start_timeout_s: 60,
  });
  await atZero(o, id);

  const client = new OpenAI({ apiKey, baseURL: `http://127.0.0.1:${inference.port}/v1`, maxRetries: 0 });
  const messages = [{ role: "user" as const, content: "Hello" }];
  const started = performance.now();
  const [plain, streamed] = await Promise.all([
    client.chat.completions.create({ model: "tiny-zero", messages, max_tokens: 8 }),
    (async () => {
      const stream = await client.chat.completions.create({
        model: "tiny-zero",
        messages,
        max_tokens: 8,
        stream: true,
      });
      let chunks = 0;
      for await (const chunk of stream) if (chunk.choices[0]?.delta?.content) chunks++;
      return chunks;
    })(),
  ]);
  console.log(`tiny model from zero: answered in ${((performance.now() - started) / 1000).toFixed(2)} s`);
  expect(plain.usage?.completion_tokens).toBeGreaterThan(0);
  expect(streamed).toBeGreaterThan(0);
  expect(scaleDecisions(await status(o, id)).some((d) => d.from === 0 && d.to === 1)).toBe(true);
}, 120_000);
