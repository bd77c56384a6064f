// Autoscaling through a remote provider's one interface, on the Nosana fake whose jobs point at a real
// llama.cpp worker of the tiny model: scaled to zero, nothing is left running at Nosana; a request
// starts a Nosana deployment again, waits for it and is answered; idle, it goes back to zero.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createNosanaProvider } from "#adapters/providers/nosana/index.ts";
import { type FakeNosana, startFakeNosana } from "../fakes/nosana/server.ts";
import { testEngines } from "../fakes/support/engines.ts";
import { createPool, eventually } from "../orchestration/support.ts";
import {
  chat,
  configureProvider,
  deploy,
  freshProviders,
  type ProviderTest,
  poolActive,
  startProviderTest,
  stopProviderTest,
  until,
} from "../providers/support.ts";
import { atZero, scaleDecisions, setAutoscaling, status } from "./support.ts";

let p: ProviderTest;
let fake: FakeNosana;

beforeAll(async () => {
  p = await startProviderTest();
  fake = startFakeNosana({ workerUrl: p.worker.url });
  freshProviders(p.o, "nosana", (accounts) => createNosanaProvider({ engines: testEngines, accounts }));
  await configureProvider(p, "nosana", { base_url: fake.baseUrl }, { api_key: fake.apiKey });
}, 90_000);
afterAll(async () => {
  await stopProviderTest(p);
  fake.stop();
}, 30_000);

test("nosana: to zero and back from it on a request, through the provider interface", async () => {
  const pool = await createPool(p.o, {
    provider: "nosana",
    allowed_gpu_types: ["RTX 3060"],
    max_cost_per_hour: 1,
  });
  await poolActive(p, pool.pool_id);
  const id = await deploy(p, { model_name: "tiny-chat", pool_id: pool.pool_id, gpu_per_replica: 1 });
  await until(p, id, "RUNNING");
  expect(fake.held()).toHaveLength(1);
  await setAutoscaling(p.o, id, {
    min_replicas: 0,
    max_replicas: 2,
    target_in_flight_per_replica: 4,
    scale_down_delay_s: 0.5,
    cold_start_timeout_s: 30,
  });
  await atZero(p.o, id);
  await eventually(async () => fake.held().length === 0, 10_000, "nothing left at Nosana");

  const answer = await chat(p);
  expect(answer.object).toBe("chat.completion");
  const up = scaleDecisions(await status(p.o, id)).find((d) => d.from === 0);
  expect(up).toMatchObject({ to: 1, reason: "scaled up from 0 to 1: 1 request waiting at zero replicas" });

  await atZero(p.o, id);
  await eventually(async () => fake.held().length === 0, 10_000, "nothing left at Nosana again");
}, 90_000);
