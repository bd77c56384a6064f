// A replica that never gets ready is stopped after the start time-out, and the deployment's reason
// carries what the provider said it was waiting for (e.g. Kubernetes' "Unschedulable: ...").
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { ComputeProvider } from "#adapters/providers/provider.ts";
import type { POST as deployRoute } from "#routes/orchestration/deployment/deploy.ts";
import type { GET as statusRoute } from "#routes/orchestration/deployment/status/[deployment_id].ts";
import { type Reconciler, startReconciler } from "#services/orchestration/reconciler.ts";
import { freshProviders } from "../providers/support.ts";
import { call } from "../support/app.ts";
import { createPool, eventually, type OrchestrationTest, startOrchestrationTest } from "./support.ts";

let o: OrchestrationTest;
let reconciler: Reconciler;
const waitingFor = "Unschedulable: 0/3 nodes are available: 3 Insufficient nvidia.com/gpu.";

beforeAll(async () => {
  o = await startOrchestrationTest();
  // `external`, stood in by a provider whose replicas never leave "starting".
  freshProviders(o, "external", () => {
    const never: ComputeProvider = {
      id: "external",
      summary: "never ready",
      capabilities: { engines: ["openai-compatible"], gpus: false, pricing: false, needsModelFile: false },
      provisionPool: async () => ({ state: "Active" }),
      deprovisionPool: async () => {},
      listResources: async () => ({ provider: "external", cpu: null, memory: null, gpus: [], notes: [] }),
      startReplica: async (spec) => ({ replicaId: spec.replicaId, providerInstanceId: "x", endpoint: null }),
      stopReplica: async () => {},
      inspectReplica: async () => ({ phase: "starting", waitingFor }),
      readLogs: async () => ({ lines: [], cursor: "0" }),
    };
    return never;
  });
  reconciler = startReconciler(o.t.app, { intervalMs: 100, startTimeoutMs: 300, maxStartAttempts: 1 });
}, 30_000);
afterAll(async () => {
  await reconciler.stop();
  await o.t.close();
}, 30_000);

test("the start time-out's reason names what the provider was waiting for", async () => {
  const pool = await createPool(o, { provider: "external" });
  const deployed = await call<typeof deployRoute>(o.orchestration, "POST", "/deployment/deploy", {
    token: o.token,
    body: {
      model_name: "never-ready",
      pool_id: pool.pool_id,
      engine: "openai-compatible",
      image: "none",
      configuration: { endpoints: ["http://127.0.0.1:9/v1"] },
    },
  });
  expect(deployed.status).toBe(201);
  const failed = await eventually(
    async () => {
      const s = await call<typeof statusRoute>(
        o.orchestration,
        "GET",
        `/deployment/status/${deployed.body.deployment_id}`,
        {
          token: o.token,
        },
      );
      return s.body.status === "FAILED" ? s.body : undefined;
    },
    15_000,
    "FAILED",
  );
  expect(failed.failure_reason).toContain("not ready within");
  expect(failed.failure_reason).toContain(waitingFor);
}, 30_000);
