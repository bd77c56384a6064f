// A replica scaled away leaves the rotation at once (it is no longer among the deployment's
// endpoints) but keeps running for the drain time, so requests sent with a gateway's cached endpoints
// and those under way finish; then it is stopped. Scaled back up meanwhile, it serves again.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { type Reconciler, startReconciler } from "#services/orchestration/reconciler.ts";
import { defaultOrgId, insertDeployment } from "../management/support.ts";
import {
  eventually,
  fakeOpenAIServer,
  type OrchestrationTest,
  startOrchestrationTest,
} from "../orchestration/support.ts";
import { call } from "../support/app.ts";
import { status } from "./support.ts";

let o: OrchestrationTest;
let reconciler: Reconciler;
const drainMs = 1500;
const stubs = [1, 2, 3].map(() => fakeOpenAIServer("drained"));
beforeAll(async () => {
  o = await startOrchestrationTest();
  reconciler = startReconciler(o.t.app, { intervalMs: 50, drainMs });
}, 60_000);
afterAll(async () => {
  await reconciler.stop();
  for (const stub of stubs) stub.stop();
  await o.t.close();
});

const scale = (id: string, replicas: number) =>
  call(o.orchestration, "POST", "/deployment/scale", {
    token: o.token,
    body: { deployment_id: id, replicas },
  });

test("scaled down, a replica drains out of rotation before it stops; scaled up meanwhile, it serves again", async () => {
  // The reconciler already runs: the endpoints go in with the row (an update after it raced the
  // reconciler's pass, which failed the deployment for want of them).
  const { id } = await insertDeployment(o.t.app.db, await defaultOrgId(o.t.app.db), {
    name: "drained",
    endpoints: stubs.map((stub) => `${stub.url}/v1`),
    wanted: 3,
  });
  await eventually(async () => (await status(o, id)).endpoints.length === 3, 20_000, "three ready");

  const scaledAt = Date.now();
  expect((await scale(id, 1)).status).toBe(200);
  const draining = await eventually(
    async () => {
      const d = await status(o, id);
      return d.observed_replicas.filter((r) => r.state === "DRAINING").length === 2 ? d : undefined;
    },
    10_000,
    "two draining",
  );
  expect(draining.endpoints).toHaveLength(1);
  await eventually(
    async () => (await status(o, id)).observed_replicas.length === 1,
    10_000,
    "drained and stopped",
  );
  // Measured from the scale call rather than sampled after a sleep: a slow machine only lengthens it.
  expect(Date.now() - scaledAt).toBeGreaterThanOrEqual(drainMs);

  // Back up during a drain: the draining replica is READY again.
  expect((await scale(id, 2)).status).toBe(200);
  await eventually(async () => (await status(o, id)).endpoints.length === 2, 10_000, "two ready");
  expect((await scale(id, 1)).status).toBe(200);
  await eventually(
    async () => (await status(o, id)).observed_replicas.some((r) => r.state === "DRAINING"),
    10_000,
    "draining",
  );
  expect((await scale(id, 2)).status).toBe(200);
  const back = await eventually(
    async () => {
      const d = await status(o, id);
      return d.endpoints.length === 2 ? d : undefined;
    },
    10_000,
    "serving again",
  );
  expect(back.observed_replicas.map((r) => r.state)).toEqual(["READY", "READY"]);
}, 90_000);
