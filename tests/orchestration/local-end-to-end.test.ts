// From pool to tokens on this machine, with real llama.cpp workers and the tiny GGUF model: the
// whole path over HTTP, chat completions from the replica's endpoint with the openai SDK (streaming
// and not), terminate/start/delete, a killed worker restarted, a corrupt model failing the
// deployment, and two replicas answering at once.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Static } from "@sinclair/typebox";
import OpenAI from "openai";
import { isAlive, pidOf } from "#adapters/providers/local/processes.ts";
import { buildHttpGateway } from "#routes/gateways.ts";
import type { Deployment } from "#routes/orchestration/_schemas/deployment.ts";
import type { DELETE as deleteDeployment } from "#routes/orchestration/deployment/delete/[deployment_id].ts";
import type { POST as deployRoute } from "#routes/orchestration/deployment/deploy.ts";
import type { GET as poolInventory } from "#routes/orchestration/deployment/list/pool/[pool_id]/inventory.ts";
import type { GET as listPools } from "#routes/orchestration/deployment/listPools/[owner_id].ts";
import type { GET as deploymentLogs } from "#routes/orchestration/deployment/logs/[deployment_id]/index.ts";
import type { POST as registerModel } from "#routes/orchestration/deployment/registerModel.ts";
import type { POST as startDeployment } from "#routes/orchestration/deployment/start.ts";
import type { GET as deploymentStatus } from "#routes/orchestration/deployment/status/[deployment_id].ts";
import type { POST as terminate } from "#routes/orchestration/deployment/terminate.ts";
import { writeTinyGguf } from "#scripts/make-tiny-gguf.ts";
import { listen } from "#server/http/listen.ts";
import type { Listener } from "#server/start/platform.ts";
import { type Reconciler, startReconciler } from "#services/orchestration/reconciler.ts";
import { call } from "../support/app.ts";
import {
  createPool,
  eventually,
  firstReplica,
  type OrchestrationTest,
  startOrchestrationTest,
} from "./support.ts";

let o: OrchestrationTest;
let reconciler: Reconciler;
let listener: Listener;
let poolId: string;
let nodeToken: string;
let modelPath: string;

beforeAll(async () => {
  o = await startOrchestrationTest({ HEARTBEAT_INTERVAL_MS: "1000" });
  listener = listen(o.t.app, "orchestration", 0, await buildHttpGateway(o.t.app, "orchestration"));
  reconciler = startReconciler(o.t.app, {
    intervalMs: 200,
    logPumpMs: 100,
    restartBaseMs: 200,
    heartbeatUrl: `http://127.0.0.1:${listener.port}/inventory/heartbeat`,
  });
  modelPath = join(o.t.config.dataDir, "tiny.gguf");
  writeTinyGguf(modelPath);
  const pool = await createPool(o, { pool_name: "this-machine", provider: "local" });
  poolId = pool.pool_id;
  nodeToken = pool.node_token;
}, 60_000);
afterAll(async () => {
  await reconciler.stop({ stopWorkers: true });
  await listener.stop(100);
  await o.t.close();
});

const status = async (id: string) =>
  (
    await call<typeof deploymentStatus>(o.orchestration, "GET", `/deployment/status/${id}`, {
      token: o.token,
    })
  ).body;
const until = (id: string, state: string, timeoutMs = 30_000) =>
  eventually(
    async () => {
      const d = await status(id);
      return d.status === state ? d : undefined;
    },
    timeoutMs,
    `status ${state}`,
  );
const deploy = async (body: Record<string, unknown>) => {
  const res = await call<typeof deployRoute>(o.orchestration, "POST", "/deployment/deploy", {
    token: o.token,
    body: { pool_id: poolId, image: "llama.cpp", engine: "llama.cpp", ...body },
  });
  if (res.status !== 201) throw new Error(`deploy: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.deployment_id;
};
const pidsOf = (d: Static<typeof Deployment>) =>
  d.observed_replicas.map((r) => pidOf(r.provider_instance_id ?? "") as number);
/** The worker pid of a deployment's first replica (the test deployed one). */
const firstPid = (d: Static<typeof Deployment>) => {
  const [pid] = pidsOf(d);
  if (pid === undefined) throw new Error(`deployment ${d.deployment_id} has no worker`);
  return pid;
};

describe("from pool to tokens", () => {
  let id: string;

  test("pool Active; registered model; deploy -> DEPLOYING -> RUNNING; tokens from the replica's endpoint", async () => {
    await eventually(
      async () => {
        const list = await call<typeof listPools>(
          o.orchestration,
          "GET",
          `/deployment/listPools/${o.orgId}`,
          {
            token: o.token,
          },
        );
        return list.body.pools.find((p) => p.pool_id === poolId)?.state === "Active";
      },
      5000,
      "the pool to be Active",
    );
    const model = await call<typeof registerModel>(o.orchestration, "POST", "/deployment/registerModel", {
      token: o.token,
      body: { model_name: "tiny", model_version: "1", backend: "llama.cpp", artifact_uri: modelPath },
    });
    expect(model.status).toBe(201);

    const started = Date.now();
    id = await deploy({ model_name: "tiny-chat", inference_model: "registry://tiny/1" });
    expect((await status(id)).status).toBe("DEPLOYING");
    const running = await until(id, "RUNNING");
    console.log(`deploy -> RUNNING: ${((Date.now() - started) / 1000).toFixed(2)} s`);
    expect(running.observed_replicas).toHaveLength(1);
    const replica = firstReplica(running);
    expect(replica.state).toBe("READY");
    expect(replica.endpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    expect<(string | null)[]>(running.endpoints).toEqual([replica.endpoint]);
    expect(running.transitions.map((t) => t.to)).toEqual(["DEPLOYING", "RUNNING"]);

    const client = new OpenAI({ baseURL: replica.endpoint, apiKey: "unused" });
    const completion = await client.chat.completions.create({
      model: "tiny-chat",
      messages: [{ role: "user", content: "Hello" }],
      max_tokens: 8,
    });
    expect(completion.object).toBe("chat.completion");
    expect(typeof completion.choices[0]?.message.content).toBe("string");
    expect(completion.usage?.completion_tokens).toBeGreaterThan(0);

    const stream = await client.chat.completions.create({
      model: "tiny-chat",
      messages: [{ role: "user", content: "Hello" }],
      max_tokens: 8,
      stream: true,
    });
    let chunks = 0;
    for await (const chunk of stream) if (chunk.choices[0]?.delta?.content) chunks++;
    expect(chunks).toBeGreaterThan(0);
  }, 60_000);

  test("the worker reports heartbeats (a READY node) and its output is in the deployment's logs", async () => {
    const d = await status(id);
    const instance = firstReplica(d).provider_instance_id;
    const node = await eventually(
      async () => {
        const inv = await call<typeof poolInventory>(
          o.orchestration,
          "GET",
          `/deployment/list/pool/${poolId}/inventory`,
          {
            token: o.token,
          },
        );
        return inv.body.nodes.find((n) => n.provider_instance_id === instance);
      },
      10_000,
      "the worker's heartbeat",
    );
    expect(node.state).toBe("READY");
    expect(nodeToken).toMatch(/^nt_/);
    const logs = await eventually(
      async () => {
        const res = await call<typeof deploymentLogs>(o.orchestration, "GET", `/deployment/logs/${id}`, {
          token: o.token,
        });
        return res.body.lines.some((l) => l.stream === "stdout" && l.line.includes('"ready"'))
          ? res.body.lines
          : undefined;
      },
      5000,
      "the worker's ready line in the logs",
    );
    expect(logs.some((l) => l.stream === "system" && l.line.startsWith("replica 0 started"))).toBe(true);
  }, 60_000);

  test("a killed worker is restarted with backoff, and the replica shows it", async () => {
    const before = await status(id);
    const pid = firstPid(before);
    process.kill(pid, "SIGKILL");
    const restarted = await eventually(
      async () => {
        const d = await status(id);
        const r = firstReplica(d);
        return r.restarts === 1 && r.state === "READY" ? d : undefined;
      },
      30_000,
      "the replica to be restarted",
    );
    const replica = firstReplica(restarted);
    expect(pidOf(replica.provider_instance_id ?? "")).not.toBe(pid);
    expect(replica.last_error).toBeNull();
    expect(restarted.status).toBe("RUNNING");
    const logs = await call<typeof deploymentLogs>(o.orchestration, "GET", `/deployment/logs/${id}`, {
      token: o.token,
    });
    expect(logs.body.lines.some((l) => l.stream === "system" && /restarting in/.test(l.line))).toBe(true);
  }, 60_000);

  test("terminate -> STOPPED with the worker gone; start -> RUNNING; delete -> 404", async () => {
    const pid = firstPid(await status(id));
    const terminated = await call<typeof terminate>(o.orchestration, "POST", "/deployment/terminate", {
      token: o.token,
      body: { deployment_id: id },
    });
    expect(terminated.body.status).toBe("STOPPING");
    const stopped = await until(id, "STOPPED");
    expect(firstReplica(stopped).state).toBe("STOPPED");
    expect(isAlive(pid)).toBe(false);

    const started = await call<typeof startDeployment>(o.orchestration, "POST", "/deployment/start", {
      token: o.token,
      body: { deployment_id: id },
    });
    expect(started.body.status).toBe("DEPLOYING");
    const again = await until(id, "RUNNING");
    const newPid = firstPid(again);
    expect(isAlive(newPid)).toBe(true);

    await call<typeof terminate>(o.orchestration, "POST", "/deployment/terminate", {
      token: o.token,
      body: { deployment_id: id },
    });
    await until(id, "STOPPED");
    expect(isAlive(newPid)).toBe(false);
    expect(
      (
        await call<typeof deleteDeployment>(o.orchestration, "DELETE", `/deployment/delete/${id}`, {
          token: o.token,
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await call<typeof deploymentStatus>(o.orchestration, "GET", `/deployment/status/${id}`, {
          token: o.token,
        })
      ).status,
    ).toBe(404);
  }, 60_000);
});

describe("failures", () => {
  test("a corrupt model file turns the deployment FAILED with a readable reason", async () => {
    const corrupt = join(o.t.config.dataDir, "corrupt.gguf");
    writeFileSync(corrupt, "this is not a GGUF file at all");
    const id = await deploy({ model_name: "broken", inference_model: corrupt });
    const failed = await until(id, "FAILED");
    expect(failed.failure_reason).toContain("replica 0 cannot start");
    expect((failed.failure_reason ?? "").length).toBeGreaterThan("replica 0 cannot start: ".length);
    expect(firstReplica(failed).state).toBe("FAILED");
    expect(failed.transitions.at(-1)).toMatchObject({ from: "DEPLOYING", to: "FAILED" });
    expect(
      (
        await call<typeof deleteDeployment>(o.orchestration, "DELETE", `/deployment/delete/${id}`, {
          token: o.token,
        })
      ).status,
    ).toBe(200);
  }, 60_000);
});

describe("replicas", () => {
  test("two replicas serve concurrent requests", async () => {
    const id = await deploy({
      model_name: "tiny-pair",
      inference_model: modelPath,
      replicas: 2,
      configuration: { threads: 1 },
    });
    const running = await until(id, "RUNNING", 45_000);
    expect(running.endpoints).toHaveLength(2);
    expect(new Set(running.endpoints).size).toBe(2);
    const answers = await Promise.all(
      [...running.endpoints, ...running.endpoints].map((endpoint: string) =>
        new OpenAI({ baseURL: endpoint, apiKey: "unused" }).chat.completions.create({
          model: "tiny-pair",
          messages: [{ role: "user", content: "Hi" }],
          max_tokens: 4,
        }),
      ),
    );
    expect(answers.every((a) => a.choices.length === 1)).toBe(true);
    await call<typeof terminate>(o.orchestration, "POST", "/deployment/terminate", {
      token: o.token,
      body: { deployment_id: id },
    });
    const stopped = await until(id, "STOPPED");
    for (const pid of pidsOf(stopped)) expect(isAlive(pid)).toBe(false);
  }, 60_000);
});
