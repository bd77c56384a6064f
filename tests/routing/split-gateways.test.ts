// Fallbacks when the inference gateway runs apart from filtration: the context it resolves over HTTP
// (/internal/context/resolve) carries the fallbacks and the routing policy's prefix_affinity, and the
// log it sends back (/internal/logs/create) keeps the deployment and the replica that served.
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { ChatCompletion } from "#contracts/openai/chat.ts";
import { type OpenAiStub, startOpenAiStub } from "#scripts/openai-stub.ts";
import type { Listener } from "#server/start/platform.ts";
import {
  chat,
  filtrationOverHttp,
  type GatewayTest,
  loggedRequest,
  setPolicy,
  startGatewayTest,
} from "../inference/support.ts";
import { insertDeployment } from "../management/support.ts";
import { jsonBody } from "../support/json.ts";

let g: GatewayTest;
let filtration: Listener | undefined;
let backup: OpenAiStub;

beforeAll(async () => {
  g = await startGatewayTest({
    port: filtrationOverHttp((l) => {
      filtration = l;
    }),
  });
  backup = startOpenAiStub();
}, 60_000);
afterAll(async () => {
  backup?.stop();
  await g?.close();
  await filtration?.stop(1000);
}, 30_000);

test("a stopped deployment's fallback answers through a gateway that resolves over HTTP", async () => {
  const asked = await insertDeployment(g.o.t.app.db, g.o.orgId, { name: "split-asked", status: "STOPPED" });
  const fallback = await insertDeployment(g.o.t.app.db, g.o.orgId, {
    name: "split-backup",
    replicas: [{ state: "READY", endpoint: backup.baseUrl }],
  });
  await setPolicy(g, "routing", { fallbacks: ["split-backup"] }, asked.id);
  const res = await chat({ url: g.url, key: g.key, model: "split-asked" });
  expect(res.status).toBe(200);
  expect(res.headers.get("x-served-by")).toBe("split-backup");
  expect((await jsonBody<ChatCompletion>(res)).model).toBe("split-asked");
  const row = await loggedRequest(g, res.headers.get("x-request-id") as string);
  expect(row).toMatchObject({
    deploymentId: asked.id,
    servedByDeploymentId: fallback.id,
    servedBy: "split-backup",
    // The replica travels with the log over /internal/logs/create.
    servedByEndpoint: backup.baseUrl,
  });
});

test("prefix_affinity reaches a gateway that resolves over HTTP: on, one prompt's requests stay together; off, they alternate", async () => {
  const replicas = [startOpenAiStub(), startOpenAiStub()];
  try {
    const spread = async (name: string) => {
      await insertDeployment(g.o.t.app.db, g.o.orgId, {
        name,
        replicas: replicas.map((r) => ({ state: "READY" as const, endpoint: r.baseUrl })),
      });
      const before = replicas.map((r) => r.chatCalls);
      for (let i = 0; i < 4; i++) {
        const res = await chat({ url: g.url, key: g.key, model: name });
        expect(res.status).toBe(200);
        await res.body?.cancel();
      }
      return replicas.filter((r, i) => r.chatCalls > (before[i] as number)).length;
    };
    expect(await spread("split-affine")).toBe(1);
    const off = await insertDeployment(g.o.t.app.db, g.o.orgId, {
      name: "split-blind",
      replicas: replicas.map((r) => ({ state: "READY" as const, endpoint: r.baseUrl })),
    });
    await setPolicy(g, "routing", { prefix_affinity: false }, off.id);
    const before = replicas.map((r) => r.chatCalls);
    for (let i = 0; i < 4; i++) {
      const res = await chat({ url: g.url, key: g.key, model: "split-blind" });
      expect(res.status).toBe(200);
      await res.body?.cancel();
    }
    expect(replicas.filter((r, i) => r.chatCalls > (before[i] as number))).toHaveLength(2);
  } finally {
    for (const r of replicas) r.stop();
  }
});
