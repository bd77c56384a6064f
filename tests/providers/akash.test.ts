// The akash provider against a fake of the Akash Console API whose leases point at a real llama.cpp
// worker, through the shared remote-provider suite (conformance.ts): an SDL per replica with the
// allowed GPU models, the cheapest bid under max_cost_per_hour, lease and service URI, the lease's
// price, a chat completion through the inference gateway, scaling, terminate closing everything, a
// restart adopting the leased replica; and here, no bid under the ceiling turning the deployment FAILED.
import { expect, test } from "bun:test";
import { createAkashProvider } from "#adapters/providers/akash/index.ts";
import { type FakeAkash, startFakeAkash } from "../fakes/akash/server.ts";
import { testEngines } from "../fakes/support/engines.ts";
import { createPool } from "../orchestration/support.ts";
import { providerConformance } from "./conformance.ts";
import { activePool, configureProvider, deployFailing, providerInstanceIdOf } from "./support.ts";

providerConformance<FakeAkash>({
  provider: "akash",
  create: (accounts) => createAkashProvider({ engines: testEngines, accounts }),
  startFake: (p) => startFakeAkash({ workerHost: new URL(p.worker.url).host }),
  async setUp(run) {
    const { fake } = run;
    await configureProvider(
      run.p,
      "akash",
      { base_url: fake.baseUrl, bid_wait_s: 0 },
      { api_key: fake.apiKey },
    );
    run.poolId = (
      await createPool(run.p.o, {
        provider: "akash",
        allowed_gpu_types: ["RTX 4090"],
        max_cost_per_hour: 0.5,
      })
    ).pool_id;
  },
  held: (fake) => ({ deployments: fake.active().length }),
  deployed: {
    title:
      "deploy -> RUNNING: SDL with the allowed GPU model, the cheapest bid under the ceiling, the lease's URI",
    check({ fake, id }, replica) {
      const [d] = fake.active();
      expect(d?.dseq).toBe(providerInstanceIdOf(replica));
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
    },
  },
  price: {
    title: "the replica's price is the lease's bid price in dollars per hour",
    spec: ({ fake }) => ({
      placement: { maxCostPerHour: 0.5, allowedGpuTypes: ["RTX 4090"] },
      access: { credentials: { api_key: fake.apiKey }, settings: { base_url: fake.baseUrl } },
    }),
    // 100 uact a block, ~590 blocks an hour.
    costPerHour: 0.059036,
  },
  logs: {
    title: "the bid and lease steps are in the deployment's logs",
    line: "[akash] lease with provider akash1cheap4090",
    waitingFor: "the lease in the logs",
  },
  scaling: { title: "scaling to 2 leases a second deployment, back to 1 closes it" },
  restart: { title: "a restart of the orchestration adopts the leased replica" },
  terminate: {
    title: "terminate closes the deployment and its lease: nothing open is left at Akash",
    also({ fake }) {
      expect([...fake.deployments.values()].flatMap((d) => d.leases).every((l) => l.state === "closed")).toBe(
        true,
      );
    },
  },
  afterTerminate(run) {
    test("no bid under max_cost_per_hour: FAILED with a reason that says so, and the deployment closed", async () => {
      const { p, fake } = run;
      const dear = await activePool(p, {
        provider: "akash",
        allowed_gpu_types: ["A100"],
        max_cost_per_hour: 0.5,
      });
      const failed = await deployFailing(p, { model_name: "tiny-dear", pool_id: dear, gpu_per_replica: 1 });
      expect(failed.failure_reason).toContain("no Akash bid under the pool's max_cost_per_hour ($0.5/h");
      expect(failed.failure_reason).toContain("lowest $1.18");
      expect(fake.active()).toEqual([]);
    }, 60_000);
  },
});
