// Prefix-aware routing and reused tokens through the inference gateway, with stub replicas: a
// conversation's turns and a `previous_response_id` chain land on one replica of a deployment with
// two, `prefix_affinity: false` goes back to fewest in flight, and the hits show on /metrics. The
// replica's `usage.prompt_tokens_details.cached_tokens` reaches the client (chat, completions,
// Responses; JSON and streamed), the inference log, the metrics and the request's cost.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { and, eq } from "drizzle-orm";
import { spendDaily } from "#db/schema/index.ts";
import type { GET as policyRoute } from "#routes/filtration/management/config/[policy_type].ts";
import { type OpenAiStub, startOpenAiStub } from "#scripts/openai-stub.ts";
import {
  chat,
  type GatewayTest,
  loggedRequest,
  setPolicy,
  sseEvents,
  startGatewayTest,
} from "../inference/support.ts";
import { insertDeployment } from "../management/support.ts";
import { eventually } from "../orchestration/support.ts";
import { call } from "../support/app.ts";

let g: GatewayTest;
const stubs: OpenAiStub[] = [];

beforeAll(async () => {
  g = await startGatewayTest();
}, 60_000);
afterAll(async () => {
  for (const stub of stubs) stub.stop();
  await g?.close();
}, 30_000);

interface Pair {
  id: string;
  name: string;
  replicas: [OpenAiStub, OpenAiStub];
}

/** A deployment with two replicas, each a stub of its own. */
async function twoReplicas(): Promise<Pair> {
  const replicas: [OpenAiStub, OpenAiStub] = [startOpenAiStub(), startOpenAiStub()];
  stubs.push(...replicas);
  const name = `pair-${crypto.randomUUID().slice(0, 8)}`;
  const { id } = await insertDeployment(g.o.t.app.db, g.o.orgId, {
    name,
    replicas: replicas.map((r) => ({ state: "READY" as const, endpoint: r.baseUrl })),
  });
  return { id, name, replicas };
}

/** Which of the pair's replicas answered `send` (requests are sent one at a time). */
async function servedBy(
  pair: Pair,
  send: () => Promise<Response>,
): Promise<{ index: number; body: unknown }> {
  const before = pair.replicas.map((r) => r.chatCalls);
  const res = await send();
  expect(res.status).toBe(200);
  const body = await res.json();
  const index = pair.replicas.findIndex((r, i) => r.chatCalls > (before[i] as number));
  return { index, body };
}

const systemPrompt = (name: string) =>
  `You are ${name}. ${"Answer briefly and cite the manual. ".repeat(60)}`;

/** Turn n of a conversation, as a chat client re-sends it: the system prompt and every earlier turn. */
function conversationTurn(name: string, n: number) {
  const messages = [{ role: "system", content: systemPrompt(name) }];
  for (let i = 0; i < n; i++) {
    messages.push({ role: "user", content: `question ${i}` });
    messages.push({ role: "assistant", content: "Hello from the stub." });
  }
  messages.push({ role: "user", content: `question ${n}` });
  return messages;
}

const askChat = (model: string, messages: unknown[]) => () =>
  chat({ url: g.url, key: g.key, model }, { messages });

const metricsText = () => g.runtime.metrics.registry.metrics();

test("a conversation's successive turns land on the replica that served the first; other conversations spread", async () => {
  const pair = await twoReplicas();
  const names = ["ada", "grace", "edsger", "barbara"];
  const placed = new Map<string, number[]>();
  for (let n = 0; n < 4; n++) {
    for (const name of names) {
      const { index } = await servedBy(pair, askChat(pair.name, conversationTurn(name, n)));
      placed.set(name, [...(placed.get(name) ?? []), index]);
    }
  }
  for (const name of names) {
    const turns = placed.get(name) as number[];
    expect(new Set(turns).size).toBe(1);
  }
  // New conversations went by load: both replicas hold some.
  expect(new Set(names.map((n) => (placed.get(n) as number[])[0])).size).toBe(2);
  const text = await metricsText();
  const hits = text.match(
    new RegExp(`llm_prefix_routing_total\\{[^}]*deployment="${pair.name}"[^}]*outcome="hit"[^}]*\\} (\\d+)`),
  );
  expect(Number(hits?.[1])).toBe(12);
  expect(text).toMatch(
    new RegExp(`llm_prefix_routing_total\\{[^}]*deployment="${pair.name}"[^}]*outcome="miss"[^}]*\\} 4`),
  );
});

test("prefix_affinity: false routes by fewest in flight alone: one conversation's turns alternate", async () => {
  const pair = await twoReplicas();
  await setPolicy(g, "routing", { prefix_affinity: false }, pair.id);
  const stored = await call<typeof policyRoute>(
    g.o.filtration,
    "GET",
    `/management/config/routing?deployment_id=${pair.id}`,
    {
      token: g.o.token,
    },
  );
  expect(stored.body).toMatchObject({ config: { prefix_affinity: false } });
  const indices: number[] = [];
  for (let n = 0; n < 4; n++) {
    const { index } = await servedBy(pair, askChat(pair.name, conversationTurn("ada", n)));
    indices.push(index);
  }
  expect(new Set(indices).size).toBe(2);
  expect(await metricsText()).not.toMatch(
    new RegExp(`llm_prefix_routing_total\\{[^}]*deployment="${pair.name}"`),
  );
});

test("a previous_response_id chain lands on one replica while another chain interleaves", async () => {
  const pair = await twoReplicas();
  const respond = (input: string, previous?: string) => () =>
    fetch(`${g.url}/v1/responses`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${g.key}` },
      body: JSON.stringify({
        model: pair.name,
        instructions: "Keep it short.",
        input,
        ...(previous ? { previous_response_id: previous } : {}),
      }),
    });
  const chains: Record<string, { previous?: string; replicas: number[] }> = {
    first: { replicas: [] },
    second: { replicas: [] },
  };
  for (let n = 0; n < 4; n++) {
    for (const [name, chain] of Object.entries(chains)) {
      const { index, body } = await servedBy(
        pair,
        respond(`${name}: ${"context ".repeat(200)} turn ${n}`, chain.previous),
      );
      chain.previous = (body as { id: string }).id;
      chain.replicas.push(index);
    }
  }
  expect(new Set(chains.first?.replicas).size).toBe(1);
  expect(new Set(chains.second?.replicas).size).toBe(1);
});

test("cached_tokens of the replica's usage reach chat, completions and Responses answers, JSON and streamed", async () => {
  g.stub.cachedTokens = 7;
  try {
    const json = (await (await chat(g)).json()) as {
      usage: { prompt_tokens_details?: { cached_tokens: number } };
    };
    expect(json.usage.prompt_tokens_details?.cached_tokens).toBe(7);

    const streamed = await sseEvents(
      await chat(g, { stream: true, stream_options: { include_usage: true } }),
    );
    const usageChunk = streamed
      .filter((d) => d !== "[DONE]")
      .map((d) => JSON.parse(d) as { usage?: { prompt_tokens_details?: { cached_tokens: number } } })
      .find((c) => c.usage);
    expect(usageChunk?.usage?.prompt_tokens_details?.cached_tokens).toBe(7);

    const post = (path: string, body: Record<string, unknown>) =>
      fetch(`${g.url}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${g.key}` },
        body: JSON.stringify({ model: g.model, ...body }),
      });
    const completion = (await (await post("/v1/completions", { prompt: "Say hi" })).json()) as {
      usage: { prompt_tokens_details?: { cached_tokens: number } };
    };
    expect(completion.usage.prompt_tokens_details?.cached_tokens).toBe(7);
    const completionStream = await sseEvents(
      await post("/v1/completions", {
        prompt: "Say hi",
        stream: true,
        stream_options: { include_usage: true },
      }),
    );
    const completionUsage = completionStream
      .filter((d) => d !== "[DONE]")
      .map((d) => JSON.parse(d) as { usage?: { prompt_tokens_details?: { cached_tokens: number } } })
      .find((c) => c.usage);
    expect(completionUsage?.usage?.prompt_tokens_details?.cached_tokens).toBe(7);

    const response = (await (await post("/v1/responses", { input: "Say hi" })).json()) as {
      usage: { input_tokens_details: { cached_tokens: number } };
    };
    expect(response.usage.input_tokens_details.cached_tokens).toBe(7);
    // Responses events carry an `event:` line before their data.
    const responseStream = (await (await post("/v1/responses", { input: "Say hi", stream: true })).text())
      .split("\n")
      .filter((line) => line.startsWith("data: "))
      .map((line) => line.slice("data: ".length));
    const completed = responseStream
      .map(
        (d) =>
          JSON.parse(d) as {
            type: string;
            response?: { usage: { input_tokens_details: { cached_tokens: number } } };
          },
      )
      .find((e) => e.type === "response.completed");
    expect(completed?.response?.usage.input_tokens_details.cached_tokens).toBe(7);
  } finally {
    g.stub.cachedTokens = undefined;
  }
});

test("cached tokens go to the inference log and /metrics; a cached input price makes them cheaper", async () => {
  const stub = startOpenAiStub();
  stubs.push(stub);
  stub.cachedTokens = 7;
  const name = `priced-${crypto.randomUUID().slice(0, 8)}`;
  const { id } = await insertDeployment(g.o.t.app.db, g.o.orgId, {
    name,
    replicas: [{ state: "READY", endpoint: stub.baseUrl }],
  });
  const priced = await call(g.o.orchestration, "POST", "/deployment/price", {
    token: g.o.token,
    body: {
      deployment_id: id,
      input_price_per_million: 1,
      output_price_per_million: 2,
      cached_input_price_per_million: 0.1,
    },
  });
  expect(priced.status).toBe(200);
  expect(priced.body).toMatchObject({ cached_input_price_per_million: 0.1 });
  // The stub's usage: 12 prompt tokens, 7 of them reused, 5 completion tokens.
  const expected = ((12 - 7) * 1 + 7 * 0.1 + 5 * 2) / 1_000_000;
  const row = await eventually(async () => {
    const res = await chat({ url: g.url, key: g.key, model: name });
    expect(res.status).toBe(200);
    const logged = await loggedRequest(g, res.headers.get("x-request-id") as string);
    return logged?.cost ? logged : undefined;
  }, 10_000);
  expect(row?.cachedTokens).toBe(7);
  expect(row?.cost).toBeCloseTo(expected, 12);
  // Spend adds up what the logs cost.
  const spent = await eventually(async () => {
    const rows = await g.o.t.app.db
      .select()
      .from(spendDaily)
      .where(and(eq(spendDaily.deploymentId, id)));
    const total = rows.reduce((sum, r) => sum + Number(r.cost), 0);
    return total > 0 ? total : undefined;
  }, 10_000);
  expect(spent).toBeGreaterThan(0);
  expect((spent as number) / expected).toBeCloseTo(Math.round((spent as number) / expected), 6);
  const text = await metricsText();
  const cached = text.match(
    new RegExp(`llm_cached_tokens_total\\{[^}]*deployment="${name}"[^}]*operation="chat"[^}]*\\} (\\d+)`),
  );
  expect(Number(cached?.[1]) % 7).toBe(0);
  expect(Number(cached?.[1])).toBeGreaterThanOrEqual(7);
});
