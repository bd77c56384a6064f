// Routing through the inference gateway, with stub replicas the tests steer: the routing policy
// (POST /management/config/routing) and its validation; fallbacks on a stopped deployment, a replica
// answering 500, a time-out before the first byte and a replica's 429; a fallback the key may not use
// skipped; `x-served-by` and the log's asked and served deployments; fewest in flight and passive
// health across a deployment's replicas, end to end.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import OpenAI from "openai";
import type { ChatCompletion } from "#contracts/openai/chat.ts";
import { deployments } from "#db/schema/index.ts";
import type {
  GET as policyRoute,
  POST as setPolicyRoute,
} from "#routes/filtration/management/config/[policy_type].ts";
import type { GET as deploymentLogsRoute } from "#routes/filtration/management/deployments/[id]/logs.ts";
import { type OpenAiStub, startOpenAiStub } from "#scripts/openai-stub.ts";
import {
  chat,
  createKey,
  type GatewayTest,
  loggedRequest,
  setPolicy,
  startGatewayTest,
} from "../inference/support.ts";
import { insertDeployment } from "../management/support.ts";
import { eventually } from "../orchestration/support.ts";
import { call, type ErrorBody, jsonBody } from "../support/app.ts";

let g: GatewayTest;
const stubs: OpenAiStub[] = [];

beforeAll(async () => {
  g = await startGatewayTest({ replicaHealth: { failureThreshold: 3, probeBaseMs: 100, probeMaxMs: 400 } });
}, 60_000);
afterAll(async () => {
  for (const stub of stubs) stub.stop();
  await g?.close();
}, 30_000);

interface Served {
  id: string;
  name: string;
  stub: OpenAiStub;
}

/** A deployment of the test's organization with one replica: a stub of its own. */
async function deployment(status: "RUNNING" | "STOPPED" = "RUNNING"): Promise<Served> {
  const stub = startOpenAiStub();
  stubs.push(stub);
  const name = `d-${crypto.randomUUID().slice(0, 8)}`;
  const { id } = await insertDeployment(g.o.t.app.db, g.o.orgId, {
    name,
    status,
    replicas: status === "RUNNING" ? [{ state: "READY", endpoint: stub.baseUrl }] : [],
  });
  return { id, name, stub };
}

const routing = (asked: Served, fallbacks: Served[]) =>
  setPolicy(g, "routing", { fallbacks: fallbacks.map((f) => f.name) }, asked.id);

const ask = (asked: Served, body: Record<string, unknown> = {}, key = g.key) =>
  chat({ url: g.url, key, model: asked.name }, body, key);

/** Asks until a 200 comes (a routing change reaches the gateway within its cache's lifetime), up to 5 s. */
const answered = (asked: Served) =>
  eventually(async () => {
    const r = await ask(asked);
    if (r.status === 200) return r;
    await r.body?.cancel();
    return undefined;
  }, 5000);
/** Sets a routing policy: the policy answered, or the error named by `R` (`postRouting<ErrorBody>`). */
const postRouting = <R = typeof setPolicyRoute>(body: Record<string, unknown>) =>
  call<R>(g.o.filtration, "POST", "/management/config/routing", { token: g.o.token, body });

const metricsText = () => g.runtime.metrics.registry.metrics();

const fieldsOf = (body: { error?: { details?: { fields?: { field: string }[] } } }) =>
  (body.error?.details?.fields ?? []).map((f) => f.field);

test("the routing policy names other deployments of the organization; anything else is 400", async () => {
  const asked = await deployment();
  const other = await deployment();

  const unknown = await postRouting<ErrorBody>({
    deployment_id: asked.id,
    config: { fallbacks: ["no-such-deployment"] },
  });
  expect(unknown.status).toBe(400);
  expect(fieldsOf(unknown.body)).toEqual(["config.fallbacks.0"]);

  const self = await postRouting<ErrorBody>({
    deployment_id: asked.id,
    config: { fallbacks: [other.name, asked.name] },
  });
  expect(self.status).toBe(400);
  expect(fieldsOf(self.body)).toEqual(["config.fallbacks.1"]);

  const orgWide = await postRouting<ErrorBody>({ config: { fallbacks: [other.name] } });
  expect(orgWide.status).toBe(400);
  expect(fieldsOf(orgWide.body)).toEqual(["deployment_id"]);

  const malformed = await postRouting<ErrorBody>({
    deployment_id: asked.id,
    config: { fallbacks: other.name },
  });
  expect(malformed.status).toBe(400);
  const twice = await postRouting<ErrorBody>({
    deployment_id: asked.id,
    config: { fallbacks: [other.name, other.name] },
  });
  expect(twice.status).toBe(400);
  const extra = await postRouting<ErrorBody>({
    deployment_id: asked.id,
    config: { fallbacks: [], retries: 2 },
  });
  expect(extra.status).toBe(400);

  const saved = await postRouting({ deployment_id: asked.id, config: { fallbacks: [other.name] } });
  expect(saved.status).toBe(200);
  const read = await call<typeof policyRoute>(
    g.o.filtration,
    "GET",
    `/management/config/routing?deployment_id=${asked.id}`,
    {
      token: g.o.token,
    },
  );
  expect(read.status).toBe(200);
  expect(read.body).toMatchObject({
    policy_type: "routing",
    deployment_id: asked.id,
    config: { fallbacks: [other.name] },
    source: "deployment",
  });
});

test("a stopped deployment is answered by its fallback: x-served-by, model as asked, both in the log", async () => {
  const asked = await deployment("STOPPED");
  const fallback = await deployment();

  const before = await ask(asked);
  expect(before.status).toBe(503);
  await before.body?.cancel();

  await routing(asked, [fallback]);
  const res = await answered(asked);
  expect(res.headers.get("x-served-by")).toBe(fallback.name);
  const body = await jsonBody<ChatCompletion>(res);
  expect(body.model).toBe(asked.name);
  expect(body.choices[0]?.message.content).toBe("Hello from the stub.");
  // The fallback's replica is asked for its own model.
  expect(fallback.stub.received.at(-1)?.model).toBe(fallback.name);

  expect(await metricsText()).toContain(
    `llm_fallbacks_total{deployment="${asked.name}",deployment_id="${asked.id}",served_by="${fallback.name}"} 1`,
  );
  const row = await loggedRequest(g, res.headers.get("x-request-id") as string);
  expect(row).toMatchObject({
    deploymentId: asked.id,
    model: asked.name,
    servedByDeploymentId: fallback.id,
    servedBy: fallback.name,
    // The fallback's replica that answered: its base URL, as the deployment's replicas list it.
    servedByEndpoint: fallback.stub.baseUrl,
    status: 200,
  });
  const page = await call<typeof deploymentLogsRoute>(
    g.o.filtration,
    "GET",
    `/management/deployments/${asked.id}/logs`,
    {
      token: g.o.token,
    },
  );
  expect(page.status).toBe(200);
  expect(page.body.items[0]).toMatchObject({
    deployment_id: asked.id,
    served_by_deployment_id: fallback.id,
    served_by: fallback.name,
    served_by_endpoint: fallback.stub.baseUrl,
  });
});

test("a replica answering 500 falls back, in the policy's order, streamed and not (openai SDK)", async () => {
  const asked = await deployment();
  const first = await deployment();
  const second = await deployment();
  asked.stub.behaviour = "fail";
  first.stub.behaviour = "fail";
  await routing(asked, [first, second]);
  const client = new OpenAI({ baseURL: `${g.url}/v1`, apiKey: g.key, maxRetries: 0 });

  const { data, response } = await client.chat.completions
    .create({ model: asked.name, messages: [{ role: "user", content: "Hi" }] })
    .withResponse();
  expect(response.headers.get("x-served-by")).toBe(second.name);
  expect(data.model).toBe(asked.name);
  expect(asked.stub.received).toHaveLength(1);
  expect(first.stub.received).toHaveLength(1);
  expect(second.stub.received).toHaveLength(1);

  const streamed = await client.chat.completions
    .create({ model: asked.name, messages: [{ role: "user", content: "Hi" }], stream: true })
    .withResponse();
  expect(streamed.response.headers.get("x-served-by")).toBe(second.name);
  let text = "";
  for await (const chunk of streamed.data) {
    expect(chunk.model).toBe(asked.name);
    text += chunk.choices[0]?.delta?.content ?? "";
  }
  expect(text).toBe("Hello t1 t2 t3 t4");

  // Completions and responses go through the same path.
  const completion = await client.completions.create({ model: asked.name, prompt: "Hi" }).withResponse();
  expect(completion.response.headers.get("x-served-by")).toBe(second.name);
  const answered = await client.responses.create({ model: asked.name, input: "Hi" }).withResponse();
  expect(answered.response.headers.get("x-served-by")).toBe(second.name);
  expect(answered.data.model).toBe(asked.name);
});

test("embeddings fall back too", async () => {
  const failing = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch: () => Response.json({ error: { message: "down" } }, { status: 500 }),
  });
  const working = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch: async (req) => {
      const body = (await req.json()) as { model: string };
      return Response.json({
        object: "list",
        model: body.model,
        data: [{ object: "embedding", index: 0, embedding: [0.6, 0.8] }],
        usage: { prompt_tokens: 2, total_tokens: 2 },
      });
    },
  });
  try {
    const names = [`e-${crypto.randomUUID().slice(0, 8)}`, `e-${crypto.randomUUID().slice(0, 8)}`];
    const [asked] = await Promise.all(
      [failing, working].map((server, i) =>
        insertDeployment(g.o.t.app.db, g.o.orgId, {
          name: names[i] as string,
          replicas: [{ state: "READY", endpoint: `http://127.0.0.1:${server.port}/v1` }],
        }),
      ),
    );
    await setPolicy(g, "routing", { fallbacks: [names[1]] }, asked?.id);
    const client = new OpenAI({ baseURL: `${g.url}/v1`, apiKey: g.key, maxRetries: 0 });
    const { data, response } = await client.embeddings
      .create({ model: names[0] as string, input: "Hi", encoding_format: "float" })
      .withResponse();
    expect(response.headers.get("x-served-by")).toBe(names[1] as string);
    expect(data.model).toBe(names[0] as string);
    expect(data.data[0]?.embedding).toEqual([0.6, 0.8]);
  } finally {
    failing.stop(true);
    working.stop(true);
  }
});

test("a time-out before the first byte falls back", async () => {
  const asked = await deployment();
  const fallback = await deployment();
  asked.stub.behaviour = "hang";
  await routing(asked, [fallback]);
  const saved = { ...g.runtime.timeouts };
  g.runtime.timeouts.firstByteMs = 500;
  g.runtime.timeouts.firstByteStreamMs = 500;
  try {
    const res = await ask(asked);
    expect(res.status).toBe(200);
    expect(res.headers.get("x-served-by")).toBe(fallback.name);
    await res.body?.cancel();
    const streamed = await ask(asked, { stream: true });
    expect(streamed.status).toBe(200);
    expect(streamed.headers.get("x-served-by")).toBe(fallback.name);
    expect((await streamed.text()).trim().endsWith("data: [DONE]")).toBe(true);
  } finally {
    Object.assign(g.runtime.timeouts, saved);
  }
});

test("a replica's 429 falls back; without a fallback the caller gets that 429", async () => {
  const asked = await deployment();
  const fallback = await deployment();
  asked.stub.behaviour = "busy";

  const alone = await ask(asked);
  expect(alone.status).toBe(429);
  await alone.body?.cancel();

  await routing(asked, [fallback]);
  const res = await answered(asked);
  expect(res.headers.get("x-served-by")).toBe(fallback.name);
  await res.body?.cancel();
});

test("a fallback the key may not use is skipped", async () => {
  const asked = await deployment();
  const forbidden = await deployment();
  const allowed = await deployment();
  asked.stub.behaviour = "fail";
  await routing(asked, [forbidden, allowed]);

  const scoped = await createKey(g.o, { deployment_ids: [asked.id, allowed.id] });
  const res = await ask(asked, {}, scoped);
  expect(res.status).toBe(200);
  expect(res.headers.get("x-served-by")).toBe(allowed.name);
  await res.body?.cancel();
  expect(forbidden.stub.received).toHaveLength(0);

  // A key for the asked deployment alone gets its failure, not another deployment's answer.
  const only = await createKey(g.o, { deployment_ids: [asked.id] });
  const refused = await ask(asked, {}, only);
  expect(refused.status).toBe(502);
  expect(refused.headers.get("x-served-by")).toBeNull();
  await refused.body?.cancel();
  expect(forbidden.stub.received).toHaveLength(0);
});

test("a fallback that is stopped is skipped, even with a replica still listed as ready", async () => {
  const asked = await deployment();
  const stopped = await deployment();
  const running = await deployment();
  await g.o.t.app.db
    .update(deployments)
    .set({ status: "STOPPED", desiredState: "stopped" })
    .where(eq(deployments.id, stopped.id));
  asked.stub.behaviour = "fail";
  await routing(asked, [stopped, running]);
  const res = await ask(asked);
  expect(res.headers.get("x-served-by")).toBe(running.name);
  await res.body?.cancel();
  expect(stopped.stub.received).toHaveLength(0);
});

test("a deployment that answers is not routed away: no x-served-by, the log says it served itself", async () => {
  const asked = await deployment();
  const fallback = await deployment();
  await routing(asked, [fallback]);
  const res = await ask(asked);
  expect(res.status).toBe(200);
  expect(res.headers.get("x-served-by")).toBeNull();
  await res.body?.cancel();
  expect(fallback.stub.received).toHaveLength(0);
  const row = await loggedRequest(g, res.headers.get("x-request-id") as string);
  expect(row).toMatchObject({ deploymentId: asked.id, servedByDeploymentId: asked.id, servedBy: asked.name });
});

test("requests go to the replica with the fewest in flight", async () => {
  const busy = startOpenAiStub({ chunks: 20, gapMs: 400 });
  const idle = startOpenAiStub({ chunks: 20, gapMs: 400 });
  stubs.push(busy, idle);
  const name = `d-${crypto.randomUUID().slice(0, 8)}`;
  await insertDeployment(g.o.t.app.db, g.o.orgId, {
    name,
    replicas: [
      { state: "READY", endpoint: busy.baseUrl },
      { state: "READY", endpoint: idle.baseUrl },
    ],
  });
  // One long stream holds a replica; the next answers all go to the other one, where a round robin
  // would send every other one to the busy replica. Each prompt is its own: a prompt sharing the held
  // one's prefix would follow it there, within the load bound (tests/routing/prefix-routing.test.ts).
  const held = await chat({ url: g.url, key: g.key, model: name }, { stream: true });
  expect(held.status).toBe(200);
  const holder = busy.received.length === 1 ? busy : idle;
  const other = holder === busy ? idle : busy;
  for (let i = 0; i < 4; i++) {
    const res = await chat(
      { url: g.url, key: g.key, model: name },
      { messages: [{ role: "user", content: `Question ${i}` }] },
    );
    expect(res.status).toBe(200);
    await res.body?.cancel();
  }
  expect(holder.received).toHaveLength(1);
  expect(other.received).toHaveLength(4);
  await held.body?.cancel();
});

test("a replica failing 3 times in a row leaves rotation (the fallback answers at once) and comes back", async () => {
  const asked = await deployment();
  const fallback = await deployment();
  await routing(asked, [fallback]);
  asked.stub.up = false; // every path, the probe's GET /v1/models included, answers 503
  for (let i = 0; i < 3; i++) {
    const res = await ask(asked);
    expect(res.headers.get("x-served-by")).toBe(fallback.name);
    await res.body?.cancel();
  }
  expect(asked.stub.chatCalls).toBe(3);
  expect(g.runtime.balancer.health?.outOfRotation()).toContain(asked.stub.baseUrl);
  const replica = new URL(asked.stub.baseUrl).host;
  expect(await metricsText()).toContain(`llm_replicas_out_of_rotation{replica="${replica}"} 1`);
  // Out of rotation: the next requests go to the fallback without trying the failing replica first.
  for (let i = 0; i < 3; i++) {
    const res = await ask(asked);
    expect(res.headers.get("x-served-by")).toBe(fallback.name);
    await res.body?.cancel();
  }
  expect(asked.stub.chatCalls).toBe(3);

  asked.stub.up = true;
  await eventually(
    async () => (g.runtime.balancer.health?.outOfRotation().includes(asked.stub.baseUrl) ? undefined : true),
    5000,
  );
  expect(await metricsText()).not.toContain(`llm_replicas_out_of_rotation{replica="${replica}"}`);
  const res = await ask(asked);
  expect(res.status).toBe(200);
  expect(res.headers.get("x-served-by")).toBeNull();
  await res.body?.cancel();
  expect(asked.stub.chatCalls).toBe(4);
});
