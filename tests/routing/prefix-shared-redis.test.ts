// Prefix routing shared through Redis: two inference gateway processes (two runtimes, each listening on
// its own port, over one database) and one redis-server. A conversation started through the first
// gateway continues through the second, which has never seen it, on the replica the first chose.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { RedisStore } from "#adapters/redis/client.ts";
import { buildHttpGateway } from "#routes/gateways.ts";
import { type OpenAiStub, startOpenAiStub } from "#scripts/openai-stub.ts";
import { withInference } from "#server/compose.ts";
import { httpStatusOf } from "#server/error-table.ts";
import { listen } from "#server/http/listen.ts";
import type { Listener } from "#server/start/platform.ts";
import { createInferenceRuntime, type InferenceRuntime } from "#services/inference/runtime.ts";
import { inProcessFiltration } from "#services/inference-context/in-process-port.ts";
import { chat, type GatewayTest, startGatewayTest } from "../inference/support.ts";
import { insertDeployment } from "../management/support.ts";
import { startTestRedis, type TestRedis } from "../support/redis-server.ts";

let redis: TestRedis;
const stores: RedisStore[] = [];
let first: GatewayTest;
let second: { runtime: InferenceRuntime; listener: Listener; url: string };
const replicas: OpenAiStub[] = [];

const storeOf = async () => {
  const store = new RedisStore(redis.url);
  await store.connect();
  stores.push(store);
  return store;
};

beforeAll(async () => {
  redis = await startTestRedis();
  await redis.start();
  first = await startGatewayTest({ store: await storeOf() });
  const runtime = createInferenceRuntime({
    port: inProcessFiltration(first.o.t.app),
    redis: await storeOf(),
    log: first.o.t.app.log,
    statusOf: httpStatusOf,
  });
  const app = withInference(first.o.t.app, runtime);
  const listener = listen(app, "inference", 0, await buildHttpGateway(app, "inference"));
  second = { runtime, listener, url: `http://127.0.0.1:${listener.port}` };
}, 60_000);
afterAll(async () => {
  await second?.runtime.close();
  await second?.listener.stop(1000);
  for (const stub of replicas) stub.stop();
  await first?.close();
  for (const store of stores) store.close();
  await redis?.stop();
}, 30_000);

const conversation = (name: string, turns: number) => {
  const messages = [{ role: "system", content: `You are ${name}. ${"Be brief. ".repeat(150)}` }];
  for (let i = 0; i < turns; i++) {
    messages.push(
      { role: "user", content: `question ${i}` },
      { role: "assistant", content: "Hello from the stub." },
    );
  }
  messages.push({ role: "user", content: `question ${turns}` });
  return messages;
};

test("the second gateway sends a conversation to the replica the first gateway used", async () => {
  replicas.push(startOpenAiStub(), startOpenAiStub());
  const model = `shared-${crypto.randomUUID().slice(0, 8)}`;
  await insertDeployment(first.o.t.app.db, first.o.orgId, {
    name: model,
    replicas: replicas.map((r) => ({ state: "READY" as const, endpoint: r.baseUrl })),
  });
  const servedThrough = async (url: string, messages: unknown[]) => {
    const before = replicas.map((r) => r.chatCalls);
    const res = await chat({ url, key: first.key, model }, { messages });
    expect(res.status).toBe(200);
    await res.body?.cancel();
    return replicas.findIndex((r, i) => r.chatCalls > (before[i] as number));
  };
  const names = ["ada", "grace", "edsger", "barbara"];
  const placed = new Map<string, number>();
  for (const name of names) placed.set(name, await servedThrough(first.url, conversation(name, 0)));
  expect(new Set(placed.values()).size).toBe(2);
  // In another order than the first gateway's, so that its own rotation would place each elsewhere.
  for (const name of ["grace", "ada", "barbara", "edsger"]) {
    expect(await servedThrough(second.url, conversation(name, 1))).toBe(placed.get(name) as number);
  }
  const hits = (await second.runtime.metrics.registry.metrics()).match(
    new RegExp(`llm_prefix_routing_total\\{[^}]*deployment="${model}"[^}]*outcome="hit"[^}]*\\} (\\d+)`),
  );
  expect(Number(hits?.[1])).toBe(4);
});
