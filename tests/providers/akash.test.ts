// The akash provider against a fake of the Akash Console API whose leases point at a real llama.cpp
// worker: an SDL per replica with the allowed GPU models, the cheapest bid under max_cost_per_hour,
// lease and service URI, a chat completion through the inference gateway, scaling, terminate
// closing everything, no bid under the ceiling turning the deployment FAILED, and a restart
// adopting the leased replica.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createAkashProvider } from "../../adapters/providers/akash/index.ts";
import { noAccounts } from "../../adapters/providers/remote-accounts.ts";
import { type FakeAkash, startFakeAkash } from "../fakes/akash/server.ts";
import { testEngines } from "../fakes/support/engines.ts";
import { createPool, eventually } from "../orchestration/support.ts";
import { call } from "../support/app.ts";
import {
  type Any,
  chat,
  configureProvider,
  deploy,
  freshProviders,
  type ProviderTest,
  poolActive,
  scale,
  startProviderTest,
  startTestReconciler,
  status,
  stopProviderTest,
  terminate,
  until,
} from "./support.ts";

let p: ProviderTest;
let fake: FakeAkash;
let poolId: string;

beforeAll(async () => {
  p = await startProviderTest();
  fake = startFakeAkash({ workerHost: new URL(p.worker.url).host });
  freshProviders(p.o, "akash", (accounts) => createAkashProvider({ engines: testEngines, accounts }));
  await configureProvider(p, "akash", { base_url: fake.baseUrl, bid_wait_s: 0 }, { api_key: fake.apiKey });
  poolId = (
    await createPool(p.o, { provider: "akash", allowed_gpu_types: ["RTX 4090"], max_cost_per_hour: 0.5 })
  ).pool_id;
}, 90_000);
afterAll(async () => {
  await stopProviderTest(p);
  fake.stop();
}, 30_000);

describe("akash", () => {
  let id: string;
  test("deploy -> RUNNING: SDL with the allowed GPU model, the cheapest bid under the ceiling, the lease's URI", async () => {
    await poolActive(p, poolId);
    const started = Date.now();
    id = await deploy(p, { model_name: "tiny-chat", pool_id: poolId, gpu_per_replica: 1 });
    const running = await until(p, id, "RUNNING");
    console.log(`akash deploy -> RUNNING: ${((Date.now() - started) / 1000).toFixed(2)} s`);
    const replica = running.observed_replicas[0];
    expect(replica.endpoint).toBe(`${p.worker.url}/v1`);
    const [d] = fake.active();
    expect(fake.active()).toHaveLength(1);
    expect(d?.dseq).toBe(replica.provider_instance_id);
    expect(d?.sdl).toContain('model: "rtx4090"');
    expect(d?.sdl).toContain('image: "ghcr.io/ggml-org/llama.cpp:server-cuda"');
    expect(d?.sdl).toContain("port: 8080");
    expect(d?.sdl).toMatch(new RegExp(`PROVIDER_INSTANCE_ID=llmp-[0-9a-f]{8}-${id}-`));
    // The A100 provider did not bid (not an allowed GPU); the cheaper of the two 4090 bids won.
    expect(d?.bids.map((b) => [b.provider.address, b.state])).toEqual([
      ["akash1cheap4090", "active"],
      ["akash1dear4090", "lost"],
    ]);
    expect(d?.leases[0]?.id.provider).toBe("akash1cheap4090");
  }, 60_000);

  test("the replica's price is the lease's bid price in dollars per hour", async () => {
    const provider = createAkashProvider({
      engines: testEngines,
      accounts: noAccounts,
    });
    const d = await status(p, id);
    const seen = await provider.inspectReplica(
      { replicaId: "r", providerInstanceId: d.observed_replicas[0].provider_instance_id, endpoint: null },
      {
        placement: { maxCostPerHour: 0.5, allowedGpuTypes: ["RTX 4090"] },
        access: { credentials: { api_key: fake.apiKey }, settings: { base_url: fake.baseUrl } },
      } as Any,
    );
    // 100 uact a block, ~590 blocks an hour.
    expect(seen).toEqual({ phase: "ready", endpoint: `${p.worker.url}/v1`, costPerHour: 0.059036 });
  });

  test("a chat completion through the inference gateway reaches the real engine", async () => {
    const answer = await chat(p);
    expect(answer.object).toBe("chat.completion");
    expect(answer.usage?.completion_tokens).toBeGreaterThan(0);
  }, 30_000);

  test("the bid and lease steps are in the deployment's logs", async () => {
    await eventually(
      async () => {
        const res = await call(p.o.orchestration, "GET", `/deployment/logs/${id}`, { token: p.o.token });
        return res.body.lines.some((l: Any) =>
          String(l.line).includes("[akash] lease with provider akash1cheap4090"),
        );
      },
      10_000,
      "the lease in the logs",
    );
  }, 30_000);

  test("scaling to 2 leases a second deployment, back to 1 closes it", async () => {
    await scale(p, id, 2);
    await eventually(
      async () => {
        const d = await status(p, id);
        return d.observed_replicas.length === 2 && d.observed_replicas.every((r: Any) => r.state === "READY");
      },
      20_000,
      "two READY replicas",
    );
    expect(fake.active()).toHaveLength(2);
    await scale(p, id, 1);
    await eventually(async () => fake.active().length === 1, 20_000, "one Akash deployment left");
    // The replica's row goes once its lease is closed: wait for it too, so the next test starts from one.
    await eventually(
      async () => (await status(p, id)).observed_replicas.length === 1,
      20_000,
      "one replica observed",
    );
    expect((await chat(p)).object).toBe("chat.completion");
  }, 60_000);

  test("a restart of the orchestration adopts the leased replica", async () => {
    const before = await status(p, id);
    await p.reconciler.stop();
    freshProviders(p.o, "akash", (accounts) => createAkashProvider({ engines: testEngines, accounts }));
    p.reconciler = startTestReconciler(p);
    await Bun.sleep(600);
    const after = await status(p, id);
    expect(after.status).toBe("RUNNING");
    expect(after.observed_replicas.map((r: Any) => r.provider_instance_id)).toEqual(
      before.observed_replicas.map((r: Any) => r.provider_instance_id),
    );
    expect(fake.active()).toHaveLength(1);
    expect((await chat(p)).object).toBe("chat.completion");
  }, 60_000);

  test("terminate closes the deployment and its lease: nothing open is left at Akash", async () => {
    await terminate(p, id);
    expect(fake.active()).toEqual([]);
    expect([...fake.deployments.values()].flatMap((d) => d.leases).every((l) => l.state === "closed")).toBe(
      true,
    );
  }, 60_000);

  test("no bid under max_cost_per_hour: FAILED with a reason that says so, and the deployment closed", async () => {
    const dear = await createPool(p.o, {
      provider: "akash",
      allowed_gpu_types: ["A100"],
      max_cost_per_hour: 0.5,
    });
    await poolActive(p, dear.pool_id);
    const bad = await deploy(p, { model_name: "tiny-dear", pool_id: dear.pool_id, gpu_per_replica: 1 });
    const failed = await until(p, bad, "FAILED");
    expect(failed.failure_reason).toContain("no Akash bid under the pool's max_cost_per_hour ($0.5/h");
    expect(failed.failure_reason).toContain("lowest $1.18");
    expect(fake.active()).toEqual([]);
  }, 60_000);
});
