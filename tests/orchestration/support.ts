// Shared set-up of the orchestration tests: a test platform, its filtration and orchestration
// gateways in process, and an administrator's token.
import type { Static } from "@sinclair/typebox";
import type { Deployment } from "#routes/orchestration/_schemas/deployment.ts";
import type { POST as createPoolRoute } from "#routes/orchestration/deployment/createpool.ts";
import { startOpenAiStub } from "#scripts/openai-stub.ts";
import { call, type Handler, loginAsAdmin, type startTestApp, type TestApp } from "../support/app.ts";
import { startGateways } from "../support/callers.ts";
import { until } from "../support/wait.ts";

export interface OrchestrationTest {
  t: TestApp;
  filtration: Handler;
  orchestration: Handler;
  token: string;
  orgId: string;
  userId: string;
}

export async function startOrchestrationTest(
  env: Record<string, string> = {},
  parts: Parameters<typeof startTestApp>[1] = {},
): Promise<OrchestrationTest> {
  const { t, handlers } = await startGateways(["filtration", "orchestration"], env, parts);
  const { filtration, orchestration } = handlers;
  const session = await loginAsAdmin(filtration);
  return {
    t,
    filtration,
    orchestration,
    token: session.access_token,
    orgId: session.user.org_id,
    userId: session.user.id,
  };
}

/** Creates a pool (local unless said otherwise) and returns its view with the node token. */
export async function createPool(o: OrchestrationTest, body: Record<string, unknown> = {}) {
  const res = await call<typeof createPoolRoute>(o.orchestration, "POST", "/deployment/createpool", {
    token: o.token,
    body: { pool_name: `pool-${crypto.randomUUID().slice(0, 6)}`, ...body },
  });
  if (res.status !== 201) throw new Error(`createpool: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** Polls `check` until it returns a value, or fails after `timeoutMs` (tests/support/wait.ts `until`). */
export function eventually<T>(
  check: () => Promise<T | undefined | false>,
  timeoutMs = 20_000,
  what = "condition",
): Promise<T> {
  return until(check, { what, timeoutMs, intervalMs: 100 });
}

/** A user with the admin role in a new organization of their own (a separate tenant). */
export async function otherTenant(o: OrchestrationTest, email: string) {
  const { organizations } = await import("#db/schema/index.ts");
  const { ensureBuiltinRoles } = await import("#services/orgs/builtin-roles.ts");
  const { createUser } = await import("../support/app.ts");
  const [org] = await o.t.app.db
    .insert(organizations)
    .values({ name: `other-${crypto.randomUUID().slice(0, 8)}` })
    .returning();
  if (!org) throw new Error("no organization");
  await ensureBuiltinRoles(o.t.app.db, org.id);
  return createUser(o.t, o.filtration, email, "admin", org.id);
}

/** An OpenAI-compatible server for the external provider (the inference tests' stub), up or down. */
export function fakeOpenAIServer(model = "fake") {
  const stub = startOpenAiStub({ modelId: model });
  return {
    url: stub.url,
    setUp(value: boolean) {
      stub.up = value;
    },
    stop: stub.stop,
  };
}

/** A deployment's first replica; the tests that read it deploy exactly one. */
export function firstReplica(d: Static<typeof Deployment>) {
  const replica = d.observed_replicas[0];
  if (!replica) throw new Error(`deployment ${d.deployment_id} has no replica`);
  return replica;
}
