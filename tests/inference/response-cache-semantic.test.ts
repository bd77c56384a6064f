// The semantic response cache's mechanics, with a deterministic embedding deployment (a stub whose
// vector is the question's bag of words, hashed into 64 dimensions): a question with the same words
// hits at threshold 0.9, one sharing five of six words (cosine 0.83) does not; conversations and
// requests with tools never take a neighbour's answer; each organization and deployment has its own
// questions. What the threshold is worth with a real embedding model is bench/semantic-cache.ts's.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import OpenAI from "openai";
import type { POST as createKeyRoute } from "#routes/filtration/management/api-keys/index.ts";
import { insertDeployment } from "../management/support.ts";
import { otherTenant } from "../orchestration/support.ts";
import { call, type ErrorBody } from "../support/app.ts";
import { type GatewayTest, setPolicy, startGatewayTest } from "./support.ts";

function bagOfWords(text: string): number[] {
  const vector = new Array<number>(64).fill(0);
  for (const word of text.toLowerCase().match(/[a-z0-9]+/g) ?? []) {
    const slot = Number(Bun.hash.wyhash(word) % 64n);
    vector[slot] = (vector[slot] ?? 0) + 1;
  }
  return vector;
}

function startEmbeddingStub() {
  let calls = 0;
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      if (new URL(req.url).pathname !== "/v1/embeddings") return new Response("not found", { status: 404 });
      calls++;
      const body = (await req.json()) as { input: string[] };
      return Response.json({
        object: "list",
        data: body.input.map((text, index) => ({ object: "embedding", index, embedding: bagOfWords(text) })),
        usage: { prompt_tokens: 1, total_tokens: 1 },
      });
    },
  });
  return { baseUrl: `http://127.0.0.1:${server.port}/v1`, calls: () => calls, stop: () => server.stop(true) };
}

describe("the semantic response cache", () => {
  let g: GatewayTest;
  let embedder: ReturnType<typeof startEmbeddingStub>;
  const embedderName = `embedder-${crypto.randomUUID().slice(0, 6)}`;

  beforeAll(async () => {
    g = await startGatewayTest();
    embedder = startEmbeddingStub();
    await insertDeployment(g.o.t.app.db, g.o.orgId, {
      name: embedderName,
      replicas: [{ state: "READY", endpoint: embedder.baseUrl }],
    });
  }, 30_000);
  afterAll(async () => {
    embedder.stop();
    await g.close();
  }, 30_000);

  const policy = () => ({
    mode: "semantic",
    semantic: { embedding_deployment: embedderName, threshold: 0.9 },
  });

  async function semanticDeployment(orgId = g.o.orgId): Promise<string> {
    const model = `sem-${crypto.randomUUID().slice(0, 8)}`;
    const { id } = await insertDeployment(g.o.t.app.db, orgId, {
      name: model,
      replicas: [{ state: "READY", endpoint: g.stub.baseUrl }],
    });
    if (orgId === g.o.orgId) await setPolicy(g, "cache", policy(), id);
    return model;
  }

  async function ask(
    model: string,
    messages: OpenAI.Chat.Completions.ChatCompletionMessageParam[],
    extra: { tools?: OpenAI.Chat.Completions.ChatCompletionTool[] } = {},
    key = g.key,
  ) {
    const openai = new OpenAI({ apiKey: key, baseURL: `${g.url}/v1`, maxRetries: 0 });
    const { data, response } = await openai.chat.completions
      .create({ model, temperature: 0, messages, ...extra })
      .withResponse();
    return { cache: response.headers.get("x-cache"), text: data.choices[0]?.message.content };
  }
  const user = (content: string): OpenAI.Chat.Completions.ChatCompletionMessageParam[] => [
    { role: "user", content },
  ];

  test("a policy in semantic mode without its semantic settings is refused", async () => {
    const res = await call<ErrorBody>(g.o.filtration, "POST", "/management/config/cache", {
      token: g.o.token,
      body: { deployment_id: g.deploymentId, config: { mode: "semantic" } },
    });
    expect(res.status).toBe(400);
    const bad = await call<ErrorBody>(g.o.filtration, "POST", "/management/config/cache", {
      token: g.o.token,
      body: { deployment_id: g.deploymentId, config: { mode: "fuzzy" } },
    });
    expect(bad.status).toBe(400);
  });

  test("the same question in other words hits; a different one does not", async () => {
    const model = await semanticDeployment();
    const before = g.stub.chatCalls;
    expect((await ask(model, user("What is the capital of France?"))).cache).toBe("miss");
    const near = await ask(model, user("the capital of France: what is it"));
    expect(near.cache).toBe("hit");
    expect(g.stub.chatCalls - before).toBe(1);
    // Five of six words shared: cosine 0.83, under the 0.9 threshold.
    expect((await ask(model, user("What is the capital of Spain?"))).cache).toBe("miss");
    expect((await ask(model, user("How do I bake bread?"))).cache).toBe("miss");
    expect(g.stub.chatCalls - before).toBe(3);
    expect(embedder.calls()).toBeGreaterThanOrEqual(4);
    const metrics = await g.runtime.metrics.registry.metrics();
    expect(metrics).toMatch(
      new RegExp(
        `llm_response_cache_lookups_total\\{deployment="${model}".*kind="semantic",result="hit"\\} 1`,
      ),
    );
  });

  test("only single-turn requests without tools take a neighbour's answer", async () => {
    const model = await semanticDeployment();
    const before = g.stub.chatCalls;
    await ask(model, user("Which planet is the largest?"));
    const conversation = await ask(model, [
      { role: "user", content: "Hi" },
      { role: "assistant", content: "Hello! How can I help?" },
      { role: "user", content: "the largest planet: which is it?" },
    ]);
    expect(conversation.cache).toBe("miss");
    const withTools = await ask(model, user("the largest planet: which is it?"), {
      tools: [
        { type: "function", function: { name: "lookup", parameters: { type: "object", properties: {} } } },
      ],
    });
    expect(withTools.cache).toBe("miss");
    expect(g.stub.chatCalls - before).toBe(3);
    // The same question single-turn, without tools: a neighbour's answer.
    expect((await ask(model, user("the largest planet: which is it?"))).cache).toBe("hit");
    expect(g.stub.chatCalls - before).toBe(3);
  });

  test("each deployment and each organization has its own questions", async () => {
    const [first, second] = [await semanticDeployment(), await semanticDeployment()];
    await ask(first, user("Who wrote Hamlet?"));
    expect((await ask(second, user("Hamlet, who wrote?"))).cache).toBe("miss");
    const other = await otherTenant(g.o, `sem-${crypto.randomUUID().slice(0, 6)}@example.com`);
    const orgId = other.user.org_id;
    await insertDeployment(g.o.t.app.db, orgId, {
      name: embedderName,
      replicas: [{ state: "READY", endpoint: embedder.baseUrl }],
    });
    const { id } = await insertDeployment(g.o.t.app.db, orgId, {
      name: first,
      replicas: [{ state: "READY", endpoint: g.stub.baseUrl }],
    });
    const set = await call(g.o.filtration, "POST", "/management/config/cache", {
      token: other.access_token,
      body: { deployment_id: id, config: policy() },
    });
    expect(set.status).toBe(200);
    const key = await call<typeof createKeyRoute>(g.o.filtration, "POST", "/management/api-keys", {
      token: other.access_token,
      body: { name: "other" },
    });
    expect((await ask(first, user("Hamlet, who wrote?"), {}, key.body.key)).cache).toBe("miss");
    expect((await ask(first, user("Hamlet, who wrote?"))).cache).toBe("hit");
  });
});
