// POST /deployment/scale: the wanted replica count changes (audited), the status stays; bad counts
// name `replicas`, another organization's or an unknown deployment is 404. Scaling at each remote
// provider, replicas started and stopped there, is in tests/providers/<id>.test.ts.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { and, eq } from "drizzle-orm";
import { auditLogs } from "#db/schema/index.ts";
import type { POST as scaleRoute } from "#routes/orchestration/deployment/scale.ts";
import { fieldsOf, insertDeployment } from "../management/support.ts";
import { call, type ErrorBody } from "../support/app.ts";
import { type OrchestrationTest, startOrchestrationTest } from "./support.ts";

let o: OrchestrationTest;
let id: string;

beforeAll(async () => {
  o = await startOrchestrationTest();
  // The fixture's pool is `external`, whose replicas are the listed endpoints: three of them.
  const endpoints = ["http://127.0.0.1:9/v1", "http://127.0.0.1:10/v1", "http://127.0.0.1:11/v1"];
  id = (await insertDeployment(o.t.app.db, o.orgId, { name: "scaled", status: "STOPPED", endpoints })).id;
}, 30_000);
afterAll(() => o.t.close(), 30_000);

// Typed as the route's answer; a test expecting a refusal reads it as `scale<ErrorBody>(...)`.
const scale = <R = typeof scaleRoute>(body: Record<string, unknown>) =>
  call<R>(o.orchestration, "POST", "/deployment/scale", { token: o.token, body });

test("the wanted count changes and is audited; the status stays", async () => {
  const res = await scale({ deployment_id: id, replicas: 3 });
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({ deployment_id: id, replicas: 3, status: "STOPPED" });
  const [audit] = await o.t.app.db
    .select()
    .from(auditLogs)
    .where(and(eq(auditLogs.action, "deployment.scale"), eq(auditLogs.targetId, id)));
  expect(audit?.details).toMatchObject({ from: 1, to: 3 });
});

test("a count out of range names replicas; an unknown deployment is 404", async () => {
  for (const replicas of [0, 33, 1.5]) {
    const res = await scale<ErrorBody>({ deployment_id: id, replicas });
    expect([400, 422]).toContain(res.status);
    expect(fieldsOf(res.body)).toContain("replicas");
  }
  expect((await scale({ deployment_id: crypto.randomUUID(), replicas: 2 })).status).toBe(404);
});
