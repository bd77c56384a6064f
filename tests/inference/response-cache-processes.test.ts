// The response cache shared by two gateway processes on one Redis (each running apart, resolving
// contexts over HTTP from filtration, as gateway-limits.test.ts runs them): an answer one computed is
// the other's hit, and 50 identical requests spread over both reach the model once or twice at most
// (one flight per process; the Redis claim makes the second process wait for the first's answer).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { ChatCompletion } from "#contracts/openai/chat.ts";
import { buildHttpGateway } from "#routes/gateways.ts";
import { listen } from "#server/http/listen.ts";
import type { Listener } from "#server/start/platform.ts";
import { parsedJson } from "../support/json.ts";
import { type RunningPlatform, runPlatform } from "../support/process.ts";
import { tempDirs } from "../support/temp.ts";
import { type GatewayTest, redisUrl, setPolicy, startGatewayTest } from "./support.ts";

describe.skipIf(!redisUrl)("two gateway processes sharing Redis", () => {
  let g: GatewayTest;
  let filtration: Listener;
  const gateways: RunningPlatform[] = [];
  const temp = tempDirs();

  beforeAll(async () => {
    g = await startGatewayTest();
    filtration = listen(g.o.t.app, "filtration", 0, await buildHttpGateway(g.o.t.app, "filtration"));
    await setPolicy(g, "cache", { mode: "exact", ttl_s: 300 });
    const env = {
      SERVICES: "inference",
      FILTRATION_URL: `http://127.0.0.1:${filtration.port}`,
      INTERNAL_API_KEY: g.o.t.config.internalApiKey,
      REDIS_URL: redisUrl as string,
      ...(g.o.t.database.url ? { DATABASE_URL: g.o.t.database.url } : {}),
    };
    for (let i = 0; i < 2; i++) gateways.push(await runPlatform({ ...env, DATA_DIR: temp.make("llmp-rc-") }));
  }, 60_000);
  afterAll(async () => {
    await Promise.all(gateways.map((p) => p.stop()));
    await filtration?.stop(1000);
    await g?.close();
    temp.remove();
  }, 30_000);

  const ask = async (url: string, content: string, stream = false) => {
    const response = await fetch(`${url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${g.key}` },
      body: JSON.stringify({ model: g.model, temperature: 0, stream, messages: [{ role: "user", content }] }),
    });
    const text = await response.text();
    return { status: response.status, cache: response.headers.get("x-cache"), text };
  };
  const urls = () => gateways.map((p) => `http://127.0.0.1:${p.ports.inference}`);

  test("an answer computed by one process is the other's hit", async () => {
    const [a, b] = urls() as [string, string];
    const q = `Shared ${crypto.randomUUID()}?`;
    const before = g.stub.chatCalls;
    const first = await ask(a, q);
    expect([first.status, first.cache]).toEqual([200, "miss"]);
    const second = await ask(b, q);
    expect([second.status, second.cache]).toEqual([200, "hit"]);
    expect(parsedJson<ChatCompletion>(second.text).choices[0]?.message.content).toBe(
      parsedJson<ChatCompletion>(first.text).choices[0]?.message.content,
    );
    expect(g.stub.chatCalls - before).toBe(1);
  }, 30_000);

  test("50 identical requests at once over both processes: at most 2 upstream calls", async () => {
    const q = `Crowd ${crypto.randomUUID()}?`;
    g.stub.gapMs = 30;
    try {
      const before = g.stub.chatCalls;
      const answers = await Promise.all(
        Array.from({ length: 50 }, (_, i) => ask(urls()[i % 2] as string, q, i % 3 === 0)),
      );
      const calls = g.stub.chatCalls - before;
      expect(answers.every((a) => a.status === 200)).toBe(true);
      expect(calls).toBeGreaterThanOrEqual(1);
      expect(calls).toBeLessThanOrEqual(2);
      expect(answers.filter((a) => a.cache === "miss")).toHaveLength(calls);
    } finally {
      g.stub.gapMs = 0;
    }
  }, 30_000);
});
