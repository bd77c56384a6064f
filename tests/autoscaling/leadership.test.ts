// Two orchestrators on one database, one load store: one decision per change. On PostgreSQL the
// reconciler's leader election lets one of them decide; on PGlite (one process) both passes run, and
// the decision's conditional write lets only one of them record it.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { databaseLoadStore } from "#services/orchestration/autoscaling/database-load.ts";
import { type Reconciler, startReconciler } from "#services/orchestration/reconciler.ts";
import { defaultOrgId, insertDeployment } from "../management/support.ts";
import {
  eventually,
  fakeOpenAIServer,
  type OrchestrationTest,
  startOrchestrationTest,
} from "../orchestration/support.ts";
import { scaleDecisions, setAutoscaling, status } from "./support.ts";

let o: OrchestrationTest;
const stubs = [1, 2, 3].map(() => fakeOpenAIServer("shared"));
const reconcilers: Reconciler[] = [];
beforeAll(async () => {
  o = await startOrchestrationTest();
}, 60_000);
afterAll(async () => {
  for (const r of reconcilers) await r.stop();
  for (const stub of stubs) stub.stop();
  await o.t.close();
});

test("two orchestrators, one decision", async () => {
  // External replicas are its listed endpoints: three here, one wanted.
  const { id } = await insertDeployment(o.t.app.db, await defaultOrgId(o.t.app.db), {
    name: "shared",
    endpoints: stubs.map((stub) => `${stub.url}/v1`),
  });
  await setAutoscaling(o, id, {
    min_replicas: 1,
    max_replicas: 3,
    target_in_flight_per_replica: 4,
    scale_up_delay_s: 0,
  });
  const store = databaseLoadStore(o.t.app.db);
  for (let i = 0; i < 2; i++) reconcilers.push(startReconciler(o.t.app, { intervalMs: 50, load: store }));
  await store.report("gateway", new Map([[id, { inFlight: 8, queued: 0, tokensPerSecond: 0 }]]), 60_000);
  await eventually(async () => (await status(o, id)).replicas === 2, 10_000, "two replicas wanted");
  // Many passes of both later (ten each, as 500 ms of their 50 ms interval gave), still one decision.
  for (let i = 0; i < 10; i++) await Promise.all(reconcilers.map((r) => r.pass()));
  const decisions = scaleDecisions(await status(o, id));
  expect(decisions).toEqual([
    { from: 1, to: 2, reason: "scaled up from 1 to 2: 8 in flight over 1 replica, target 4" },
  ]);
});
