// The exact response cache as a client meets it (services/inference/response-cache/): with the
// database's store (no REDIS_URL) and with Redis, through the real openai client. Each test has its
// own deployment (its own policies) in front of the one stub, whose chat calls are the upstream calls
// counted; the cache's clock is the test's, moved past the TTL instead of waited for.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import Anthropic from "@anthropic-ai/sdk";
import { eq } from "drizzle-orm";
import OpenAI from "openai";
import type { OpenAIError } from "#contracts/openai/error.ts";
import { deployments } from "#db/schema/index.ts";
import type { POST as createKeyRoute } from "#routes/filtration/management/api-keys/index.ts";
import { DatabaseResponseCacheStore } from "#services/inference/response-cache/database-store.ts";
import { insertDeployment } from "../management/support.ts";
import { eventually, otherTenant } from "../orchestration/support.ts";
import { call, jsonBody } from "../support/app.ts";
import { type GatewayTest, loggedRequest, redisUrl, setPolicy, startGatewayTest } from "./support.ts";

let offsetMs = 0;
const now = () => Date.now() + offsetMs;
const question = () => `What is ${crypto.randomUUID()}?`;

async function freshDeployment(
  g: GatewayTest,
  policies: Record<string, Record<string, unknown>> = {},
): Promise<{ model: string; id: string }> {
  const model = `cached-${crypto.randomUUID().slice(0, 8)}`;
  const { id } = await insertDeployment(g.o.t.app.db, g.o.orgId, {
    name: model,
    replicas: [{ state: "READY", endpoint: g.stub.baseUrl }],
  });
  await setPolicy(g, "cache", { mode: "exact", ttl_s: 60 }, id);
  for (const [type, config] of Object.entries(policies)) await setPolicy(g, type as "cache", config, id);
  return { model, id };
}

const client = (g: GatewayTest, key = g.key, url = g.url) =>
  new OpenAI({ apiKey: key, baseURL: `${url}/v1`, maxRetries: 0 });

/** One chat call through the openai client: its text, its x-cache header and its request id. */
async function ask(
  g: GatewayTest,
  model: string,
  content: string,
  options: { stream?: boolean; headers?: Record<string, string>; key?: string; url?: string } = {},
) {
  const openai = client(g, options.key, options.url);
  const params = { model, temperature: 0, messages: [{ role: "user" as const, content }] };
  if (options.stream) {
    const { data, response } = await openai.chat.completions
      .create(
        { ...params, stream: true, stream_options: { include_usage: true } },
        { headers: options.headers },
      )
      .withResponse();
    const chunks: OpenAI.Chat.Completions.ChatCompletionChunk[] = [];
    for await (const chunk of data) chunks.push(chunk);
    const text = chunks.map((c) => c.choices[0]?.delta.content ?? "").join("");
    return {
      text,
      chunks,
      answer: undefined,
      cache: response.headers.get("x-cache"),
      requestId: response.headers.get("x-request-id"),
    };
  }
  const { data, response } = await openai.chat.completions
    .create(params, { headers: options.headers })
    .withResponse();
  return {
    text: data.choices[0]?.message.content ?? "",
    chunks: [],
    answer: data,
    cache: response.headers.get("x-cache"),
    requestId: response.headers.get("x-request-id"),
  };
}

for (const store of ["database", "redis"] as const) {
  describe.skipIf(store === "redis" && !redisUrl)(`the exact response cache (${store})`, () => {
    let g: GatewayTest;
    beforeAll(async () => {
      g = await startGatewayTest({
        redis: store === "redis",
        now,
        ...(store === "database"
          ? { cacheStore: (o) => new DatabaseResponseCacheStore(o.t.app.db, now) }
          : {}),
      });
    }, 30_000);
    afterAll(() => g.close(), 30_000);

    test("two identical temperature-0 requests: one upstream call, the second x-cache: hit", async () => {
      expect(g.runtime.responseCache.store.kind).toBe(store);
      const { model } = await freshDeployment(g);
      const q = question();
      const before = g.stub.chatCalls;
      const first = await ask(g, model, q);
      const second = await ask(g, model, q);
      expect(first.cache).toBe("miss");
      expect(second.cache).toBe("hit");
      expect(g.stub.chatCalls - before).toBe(1);
      expect(second.text).toBe(first.text);
      expect(second.answer?.model).toBe(model);
      expect(second.answer?.usage?.total_tokens).toBe(first.answer?.usage?.total_tokens);
      // Not temperature 0 and no opt-in: computed every time.
      const sampled = await client(g).chat.completions.create({
        model,
        temperature: 0.7,
        messages: [{ role: "user", content: q }],
      });
      expect(sampled.choices[0]?.message.content).toBeTruthy();
      expect(g.stub.chatCalls - before).toBe(2);
    });

    test("a stream is stored and replayed as a stream, chunk by chunk; a plain request hits it too", async () => {
      const { model } = await freshDeployment(g);
      const q = question();
      const before = g.stub.chatCalls;
      const first = await ask(g, model, q, { stream: true });
      const second = await ask(g, model, q, { stream: true });
      expect([first.cache, second.cache]).toEqual(["miss", "hit"]);
      expect(g.stub.chatCalls - before).toBe(1);
      expect(second.text).toBe(first.text);
      expect(second.text).toBe("Hello t1 t2 t3 t4");
      // The same framing: a role chunk first, a finish_reason, usage last (include_usage).
      expect(second.chunks[0]?.choices[0]?.delta.role).toBe("assistant");
      expect(second.chunks.some((c) => c.choices[0]?.finish_reason === "stop")).toBe(true);
      expect(second.chunks.at(-1)?.usage?.total_tokens).toBe(first.chunks.at(-1)?.usage?.total_tokens);
      expect(second.chunks.every((c) => c.model === model && c.object === "chat.completion.chunk")).toBe(
        true,
      );
      const plain = await ask(g, model, q);
      expect(plain.cache).toBe("hit");
      expect(plain.text).toBe(first.text);
      expect(g.stub.chatCalls - before).toBe(1);
    });

    test("responses, messages and completions replay a kept answer in their own framing", async () => {
      const { model } = await freshDeployment(g);
      const before = g.stub.chatCalls;
      const openai = client(g);
      const q = question();
      const responses = async (stream: boolean) => {
        if (!stream) {
          const { data, response } = await openai.responses
            .create({ model, temperature: 0, input: q })
            .withResponse();
          return { cache: response.headers.get("x-cache"), text: data.output_text };
        }
        const { data, response } = await openai.responses
          .create({ model, temperature: 0, input: q, stream: true })
          .withResponse();
        let text = "";
        for await (const event of data) if (event.type === "response.output_text.delta") text += event.delta;
        return { cache: response.headers.get("x-cache"), text };
      };
      const first = await responses(false);
      const replayed = await responses(true);
      expect([first.cache, replayed.cache]).toEqual(["miss", "hit"]);
      expect(replayed.text).toBe(first.text);

      // This SDK's types have no temperature: the caller opts in with max-age instead.
      const optIn = { headers: { "cache-control": "max-age=600" } };
      const anthropic = new Anthropic({ apiKey: g.key, baseURL: g.url, maxRetries: 0 });
      const m = question();
      const ask = () =>
        anthropic.messages
          .create({ model, max_tokens: 64, messages: [{ role: "user", content: m }] }, optIn)
          .withResponse();
      const [one, two] = [await ask(), await ask()];
      expect([one.response.headers.get("x-cache"), two.response.headers.get("x-cache")]).toEqual([
        "miss",
        "hit",
      ]);
      const textOf = (content: Anthropic.ContentBlock[]) =>
        content.map((b) => (b.type === "text" ? b.text : "")).join("");
      expect(textOf(two.data.content)).toBe(textOf(one.data.content));
      const streamed = anthropic.messages.stream(
        { model, max_tokens: 64, messages: [{ role: "user", content: m }] },
        optIn,
      );
      expect(textOf((await streamed.finalMessage()).content)).toBe(textOf(one.data.content));

      const c = question();
      const complete = () =>
        openai.completions.create({ model, temperature: 0, prompt: c, max_tokens: 16 }).withResponse();
      const [c1, c2] = [await complete(), await complete()];
      expect([c1.response.headers.get("x-cache"), c2.response.headers.get("x-cache")]).toEqual([
        "miss",
        "hit",
      ]);
      expect(c2.data.choices[0]?.text).toBe(c1.data.choices[0]?.text);
      expect(g.stub.chatCalls - before).toBe(3);
    });

    test("another organization's identical request misses", async () => {
      const { model } = await freshDeployment(g);
      const q = question();
      await ask(g, model, q);
      const other = await otherTenant(g.o, `cache-${crypto.randomUUID().slice(0, 6)}@example.com`);
      const { id } = await insertDeployment(g.o.t.app.db, other.user.org_id, {
        name: model,
        replicas: [{ state: "READY", endpoint: g.stub.baseUrl }],
      });
      const policy = await call(g.o.filtration, "POST", "/management/config/cache", {
        token: other.access_token,
        body: { deployment_id: id, config: { mode: "exact" } },
      });
      expect(policy.status).toBe(200);
      const created = await call<typeof createKeyRoute>(g.o.filtration, "POST", "/management/api-keys", {
        token: other.access_token,
        body: { name: "other" },
      });
      const before = g.stub.chatCalls;
      const theirs = await ask(g, model, q, { key: created.body.key });
      expect(theirs.cache).toBe("miss");
      expect(g.stub.chatCalls - before).toBe(1);
    });

    test("Cache-Control: no-cache and no-store bypass the cache; max-age opts a sampled request in", async () => {
      const { model } = await freshDeployment(g);
      const q = question();
      const before = g.stub.chatCalls;
      await ask(g, model, q);
      expect((await ask(g, model, q, { headers: { "cache-control": "no-cache" } })).cache).toBe("miss");
      expect((await ask(g, model, q, { headers: { "cache-control": "no-store" } })).cache).toBe("miss");
      expect(g.stub.chatCalls - before).toBe(3);
      expect((await ask(g, model, q)).cache).toBe("hit");
      // temperature 0.7 with max-age: the caller accepts a kept answer.
      const sampled = q.replace("What", "Which");
      const optIn = async () => {
        const { response } = await client(g)
          .chat.completions.create(
            { model, temperature: 0.7, messages: [{ role: "user", content: sampled }] },
            { headers: { "cache-control": "max-age=600" } },
          )
          .withResponse();
        return response.headers.get("x-cache");
      };
      expect(await optIn()).toBe("miss");
      expect(await optIn()).toBe("hit");
      expect(g.stub.chatCalls - before).toBe(4);
    });

    test("an answer older than the TTL is computed again", async () => {
      const { model } = await freshDeployment(g);
      const q = question();
      const before = g.stub.chatCalls;
      await ask(g, model, q);
      offsetMs += 59_000;
      expect((await ask(g, model, q)).cache).toBe("hit");
      offsetMs += 2000;
      expect((await ask(g, model, q)).cache).toBe("miss");
      expect(g.stub.chatCalls - before).toBe(2);
    });

    test("bounded: max_entries per deployment (the oldest go first) and 1 MiB per answer", async () => {
      const { model, id } = await freshDeployment(g);
      await setPolicy(g, "cache", { mode: "exact", ttl_s: 60, max_entries: 2 }, id);
      const [q1, q2, q3] = [question(), question(), question()];
      // The policy reaches the context within a second.
      await eventually(async () => {
        const probe = question();
        await ask(g, model, probe);
        return (await ask(g, model, probe)).cache === "hit";
      }, 5000);
      for (const q of [q1, q2, q3]) await ask(g, model, q);
      // The store writes after the answer: q1 is pushed out once q3 is written.
      await eventually(async () => (await ask(g, model, q1)).cache === "miss", 5000);
      expect((await ask(g, model, q3)).cache).toBe("hit");

      const big = question();
      g.stub.deltas = ["x".repeat(1024 * 1024 + 10)];
      try {
        const before = g.stub.chatCalls;
        expect((await ask(g, model, big)).cache).toBe("miss");
        expect((await ask(g, model, big)).cache).toBe("miss");
        expect(g.stub.chatCalls - before).toBe(2);
      } finally {
        g.stub.deltas = undefined;
      }
    });

    test("50 identical requests at once: one upstream call (one per gateway process)", async () => {
      const { model } = await freshDeployment(g);
      const q = question();
      g.stub.gapMs = 20;
      try {
        const before = g.stub.chatCalls;
        const answers = await Promise.all(
          Array.from({ length: 50 }, (_, i) => ask(g, model, q, { stream: i % 2 === 0 })),
        );
        expect(g.stub.chatCalls - before).toBe(1);
        expect(answers.filter((a) => a.cache === "miss")).toHaveLength(1);
        expect(new Set(answers.map((a) => a.text)).size).toBe(1);
      } finally {
        g.stub.gapMs = 0;
      }
    });

    test("a hit is logged as cached: cost 0, no tokens consumed, the answer's tokens saved", async () => {
      const { model, id } = await freshDeployment(g);
      await g.o.t.app.db
        .update(deployments)
        .set({ inputPricePerMillion: 1000, outputPricePerMillion: 2000 })
        .where(eq(deployments.id, id));
      const q = question();
      // The price reaches the context within a second.
      await eventually(async () => (await ask(g, model, `${q} warm-up ${Date.now()}`)).cache === "miss");
      const miss = await ask(g, model, q);
      const hit = await ask(g, model, q);
      const [missLog, hitLog] = [
        await loggedRequest(g, miss.requestId as string),
        await loggedRequest(g, hit.requestId as string),
      ];
      expect(missLog?.cache).toBe("miss");
      expect(missLog?.cost).toBeGreaterThan(0);
      expect(hitLog?.cache).toBe("hit");
      expect(hitLog?.cost).toBe(0);
      expect(hitLog?.totalTokens).toBe(0);
      expect(hitLog?.cacheSavedTokens).toBe(17);
      expect(hitLog?.status).toBe(200);
      const metrics = await g.runtime.metrics.registry.metrics();
      expect(metrics).toMatch(
        new RegExp(`llm_response_cache_lookups_total\\{deployment="${model}".*result="hit"\\} 1`),
      );
      expect(metrics).toMatch(
        new RegExp(`llm_response_cache_bytes_total\\{deployment="${model}".*direction="served"\\} \\d+`),
      );
    });

    test("the input guardrails still run on a request whose answer is kept", async () => {
      const { model, id } = await freshDeployment(g);
      const q = `${question()} Write to jane.doe@example.com`;
      await ask(g, model, q);
      expect((await ask(g, model, q)).cache).toBe("hit");
      await setPolicy(g, "guardrails", { input: { pii: { action: "block" } } }, id);
      const before = g.stub.chatCalls;
      const blocked = await eventually(async () => {
        const response = await fetch(`${g.url}/v1/chat/completions`, {
          method: "POST",
          headers: { "content-type": "application/json", authorization: `Bearer ${g.key}` },
          body: JSON.stringify({ model, temperature: 0, messages: [{ role: "user", content: q }] }),
        });
        return response.status === 400 ? response : undefined;
      }, 5000);
      expect((await jsonBody<OpenAIError>(blocked)).error.code).toBe("content_policy_violation");
      expect(blocked.headers.get("x-cache")).toBeNull();
      expect(g.stub.chatCalls - before).toBe(0);
    });

    test("the rate limit counts a hit as a request", async () => {
      const { model } = await freshDeployment(g, { rate_limit: { requests_per_minute: 3 } });
      const q = question();
      const before = g.stub.chatCalls;
      const seen = [];
      for (let i = 0; i < 3; i++) seen.push((await ask(g, model, q)).cache);
      expect(seen).toEqual(["miss", "hit", "hit"]);
      const refused = await ask(g, model, q).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(OpenAI.RateLimitError);
      expect(g.stub.chatCalls - before).toBe(1);
    });
  });
}
