// Every inference error of CONTRACTS, reproduced through the inference gateway on a real port: the
// OpenAI error body, its status and code, and the headers each response must carry.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import type { OpenAIError } from "#contracts/openai/error.ts";
import type { ModelList } from "#contracts/openai/models.ts";
import { replicas } from "#db/schema/index.ts";
import type { GET as listKeysRoute } from "#routes/filtration/management/api-keys/index.ts";
import { insertDeployment } from "../management/support.ts";
import { call, jsonBody, parsedJson } from "../support/app.ts";
import { chat, createKey, type GatewayTest, setPolicy, sseEvents, startGatewayTest } from "./support.ts";

let g: GatewayTest;
beforeAll(async () => {
  g = await startGatewayTest();
}, 30_000);
afterAll(() => g.close(), 30_000);

async function expectOpenAiError(response: Response, status: number, code: string, param?: string) {
  const body = await jsonBody<OpenAIError>(response);
  expect(response.status).toBe(status);
  expect(Object.keys(body.error).sort()).toEqual(["code", "message", "param", "type"]);
  expect(body.error.code).toBe(code);
  if (param !== undefined) expect(body.error.param).toBe(param);
  expect(typeof body.error.message).toBe("string");
  expect(response.headers.get("x-request-id")).toMatch(/.+/);
  return body.error;
}

describe("400 invalid_request_error names the parameter and the rule in plain words", () => {
  const cases: [string, Record<string, unknown>, string, string][] = [
    ["temperature above 2", { temperature: 2.5 }, "temperature", "temperature must be a number from 0 to 2"],
    ["top_p above 1", { top_p: 1.5 }, "top_p", "top_p must be a number from 0 to 1"],
    ["n other than 1", { n: 2 }, "n", "n must be 1"],
    ["max_tokens of 0", { max_tokens: 0 }, "max_tokens", "max_tokens must be an integer of at least 1"],
    // Types are not coerced: the OpenAI API refuses a number sent as a string, and so do we.
    [
      "max_tokens as a string",
      { max_tokens: "5" },
      "max_tokens",
      "max_tokens must be an integer of at least 1",
    ],
    ["stream as a string", { stream: "true" }, "stream", "stream must be true or false"],
    ["presence_penalty below -2", { presence_penalty: -3 }, "presence_penalty", "presence_penalty must be"],
    ["no messages", { messages: [] }, "messages", "messages must be a non-empty array"],
    [
      "a message without a role",
      { messages: [{ content: "x" }] },
      "messages[0].role",
      "messages[0].role is required",
    ],
    ["stop as a number", { stop: 3 }, "stop", "stop must be a string"],
  ];
  for (const [name, body, param, message] of cases) {
    test(name, async () => {
      const error = await expectOpenAiError(await chat(g, body), 400, "invalid_request_error", param);
      expect(error.type).toBe("invalid_request_error");
      expect(String(error.message)).toStartWith(message);
    });
  }
  test("a body that is not JSON", async () => {
    const response = await fetch(`${g.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${g.key}`, "content-type": "application/json" },
      body: "{nope",
    });
    await expectOpenAiError(response, 400, "invalid_request_error");
  });
});

test("401 invalid_api_key: no key, an unknown key, a revoked key", async () => {
  await expectOpenAiError(await chat(g, {}, null), 401, "invalid_api_key");
  await expectOpenAiError(await chat(g, {}, `sk-${"0".repeat(48)}`), 401, "invalid_api_key");
  const key = await createKey(g.o);
  expect((await chat(g, {}, key)).status).toBe(200);
  const list = await call<typeof listKeysRoute>(g.o.filtration, "GET", "/management/api-keys", {
    token: g.o.token,
  });
  const id = list.body.api_keys.find((k) => key.startsWith(k.prefix))?.id;
  await call(g.o.filtration, "DELETE", `/management/api-keys/${id}`, { token: g.o.token });
  g.clock.advance(1100);
  await expectOpenAiError(await chat(g, {}, key), 401, "invalid_api_key");
});

test("403 model_not_allowed: a key scoped to other deployments", async () => {
  const other = await insertDeployment(g.o.t.app.db, g.o.orgId, {
    name: `other-${crypto.randomUUID().slice(0, 6)}`,
  });
  const scoped = await createKey(g.o, { deployment_ids: [other.id] });
  await expectOpenAiError(await chat(g, {}, scoped), 403, "model_not_allowed", "model");
});

test("404 model_not_found: no deployment of that name", async () => {
  await expectOpenAiError(await chat(g, { model: "no-such-model" }), 404, "model_not_found", "model");
});

test("503 deployment_unavailable: the deployment has no ready replica", async () => {
  const name = `cold-${crypto.randomUUID().slice(0, 6)}`;
  await insertDeployment(g.o.t.app.db, g.o.orgId, {
    name,
    status: "DEPLOYING",
    replicas: [{ state: "STARTING", endpoint: null }],
  });
  await expectOpenAiError(await chat(g, { model: name }), 503, "deployment_unavailable");
});

describe("with a deployment of its own", () => {
  let d: GatewayTest;
  const fresh = async () => {
    const name = `d-${crypto.randomUUID().slice(0, 8)}`;
    const { id } = await insertDeployment(g.o.t.app.db, g.o.orgId, {
      name,
      replicas: [{ state: "READY", endpoint: g.stub.baseUrl }],
    });
    d = { ...g, model: name, deploymentId: id };
    return d;
  };

  test("429 rate_limit_exceeded with Retry-After and the x-ratelimit headers; every response carries them", async () => {
    await fresh();
    await setPolicy(d, "rate_limit", { requests_per_minute: 2, tokens_per_minute: 100_000 });
    g.clock.advance(1100); // the cached context of the deployment is at most a second old
    const first = await chat(d);
    expect(first.status).toBe(200);
    expect(first.headers.get("x-ratelimit-limit-requests")).toBe("2");
    expect(first.headers.get("x-ratelimit-remaining-requests")).toBe("1");
    expect(first.headers.get("x-ratelimit-limit-tokens")).toBe("100000");
    expect(Number(first.headers.get("x-ratelimit-remaining-tokens"))).toBeLessThan(100_000);
    expect(first.headers.get("x-request-id")).toMatch(/.+/);
    const streamed = await chat(d, { stream: true });
    expect(streamed.status).toBe(200);
    expect(streamed.headers.get("x-ratelimit-remaining-requests")).toBe("0");
    expect(streamed.headers.get("x-request-id")).toMatch(/.+/);
    await streamed.text();
    const refused = await chat(d);
    await expectOpenAiError(refused, 429, "rate_limit_exceeded");
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(refused.headers.get("x-ratelimit-limit-requests")).toBe("2");
    expect(refused.headers.get("x-ratelimit-remaining-requests")).toBe("0");
    expect(refused.headers.get("x-ratelimit-limit-tokens")).toBe("100000");
    expect(refused.headers.get("x-ratelimit-remaining-tokens")).not.toBeNull();
  });

  test("429 rate_limit_exceeded on tokens: a prompt larger than the token budget", async () => {
    await fresh();
    await setPolicy(d, "rate_limit", { tokens_per_minute: 50 });
    g.clock.advance(1100);
    const big = await chat(d, { messages: [{ role: "user", content: "word ".repeat(400) }] });
    await expectOpenAiError(big, 429, "rate_limit_exceeded");
    expect(big.headers.get("x-ratelimit-limit-tokens")).toBe("50");
  });

  test("429 insufficient_quota once the organization's daily requests are used", async () => {
    // The quota counts per organization, and this file's organization made requests today already.
    await fresh();
    expect((await chat(d)).status).toBe(200);
    await g.runtime.usage.flush();
    await setPolicy(d, "quota", { requests_per_day: 1 });
    g.clock.advance(1100);
    await expectOpenAiError(await chat(d), 429, "insufficient_quota");
  });

  test("429 insufficient_quota when a prompt's tokens would pass tokens_per_day", async () => {
    await fresh();
    await setPolicy(d, "quota", { tokens_per_day: 1_000_000_000 });
    g.clock.advance(1100);
    expect((await chat(d)).status).toBe(200);
    await setPolicy(d, "quota", { tokens_per_day: 100_000 + Math.floor(Math.random() * 1000) });
    await g.runtime.usage.flush();
    g.clock.advance(1100);
    // Today's tokens so far are far below the limit; this prompt alone (about 190,000 tokens) is not.
    const big = await chat(d, { messages: [{ role: "user", content: "word ".repeat(150_000) }] });
    await expectOpenAiError(big, 429, "insufficient_quota");
    expect((await chat(d)).status).toBe(200);
  }, 20_000);

  test("400 content_policy_violation names the scanner, never the matched text", async () => {
    await fresh();
    await setPolicy(d, "guardrails", { input: { pii: { action: "block" } } });
    g.clock.advance(1100);
    const secret = "jane.doe@example.com";
    const response = await chat(d, { messages: [{ role: "user", content: `mail ${secret} now` }] });
    const error = await expectOpenAiError(response, 400, "content_policy_violation");
    expect(String(error.message)).toContain("pii");
    expect(JSON.stringify(error)).not.toContain(secret);
  });

  test("502 upstream_error: the replica answers 500, or refuses connections", async () => {
    await fresh();
    g.stub.behaviour = "fail";
    try {
      await expectOpenAiError(await chat(d), 502, "upstream_error");
    } finally {
      g.stub.behaviour = "ok";
    }
    const name = `dead-${crypto.randomUUID().slice(0, 6)}`;
    await insertDeployment(g.o.t.app.db, g.o.orgId, {
      name,
      replicas: [{ state: "READY", endpoint: "http://127.0.0.1:9/v1" }],
    });
    await expectOpenAiError(await chat(d, { model: name }), 502, "upstream_error");
  });

  test("504 upstream_timeout: the replica accepts and never answers", async () => {
    await fresh();
    const saved = { ...g.runtime.timeouts };
    g.runtime.timeouts.firstByteMs = 300;
    g.stub.behaviour = "hang";
    try {
      await expectOpenAiError(await chat(d), 504, "upstream_timeout");
    } finally {
      g.stub.behaviour = "ok";
      Object.assign(g.runtime.timeouts, saved);
    }
  });

  test("an upstream that breaks mid-stream ends the client's stream with an error event", async () => {
    await fresh();
    g.stub.behaviour = "die";
    try {
      const response = await chat(d, { stream: true });
      expect(response.status).toBe(200);
      const events = await sseEvents(response);
      const last = events.at(-1) as string;
      expect(events.length).toBeGreaterThanOrEqual(2);
      expect(parsedJson<OpenAIError>(last).error.code).toBe("upstream_error");
      expect(events).not.toContain("[DONE]");
    } finally {
      g.stub.behaviour = "ok";
    }
  });

  test("a replica row that becomes unready stops receiving traffic within a second", async () => {
    await fresh();
    expect((await chat(d)).status).toBe(200);
    await g.o.t.app.db
      .update(replicas)
      .set({ state: "STARTING" })
      .where(eq(replicas.deploymentId, d.deploymentId));
    g.clock.advance(1100);
    await expectOpenAiError(await chat(d), 503, "deployment_unavailable");
  });
});

test("GET /v1/models: 401 without a key, the list with one", async () => {
  const none = await fetch(`${g.url}/v1/models`);
  await expectOpenAiError(none, 401, "invalid_api_key");
  const listed = await fetch(`${g.url}/v1/models`, { headers: { authorization: `Bearer ${g.key}` } });
  expect(listed.status).toBe(200);
  expect(listed.headers.get("x-request-id")).toMatch(/.+/);
  const body = await jsonBody<ModelList>(listed);
  expect(body.object).toBe("list");
  expect(body.data.map((m) => m.id)).toContain(g.model);
});

test("a replica process killed in the middle of a stream: the client's stream ends with an error event", async () => {
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  // 40 deltas 50 ms apart: two seconds of answer, killed after the first few.
  const replica = Bun.spawn([process.execPath, "scripts/openai-stub.ts", String(port), "40", "50"], {
    cwd: `${import.meta.dir}/../..`,
    stdout: "pipe",
  });
  try {
    const reader = replica.stdout.getReader();
    await reader.read(); // its ready line
    const name = `killed-${crypto.randomUUID().slice(0, 6)}`;
    await insertDeployment(g.o.t.app.db, g.o.orgId, {
      name,
      replicas: [{ state: "READY", endpoint: `http://127.0.0.1:${port}/v1` }],
    });
    const response = await chat(g, { model: name, stream: true });
    expect(response.status).toBe(200);
    const body = (response.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let text = "";
    while (!text.includes("t2")) text += decoder.decode((await body.read()).value);
    replica.kill("SIGKILL");
    const started = Date.now();
    for (;;) {
      const { value, done } = await body.read();
      if (done) break;
      text += decoder.decode(value);
    }
    expect(Date.now() - started).toBeLessThan(5000);
    const events = text.split("\n\n").filter((e) => e.startsWith("data: "));
    const last = parsedJson<OpenAIError>((events.at(-1) as string).slice("data: ".length));
    expect(last.error.code).toBe("upstream_error");
    expect(text).not.toContain("[DONE]");
  } finally {
    replica.kill("SIGKILL");
  }
}, 20_000);
