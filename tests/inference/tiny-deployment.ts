// A gateway in front of a real llama.cpp worker of the tiny random-weight model, deployed through the
// orchestration API on the local provider, and an API key for it: what the client tests run against.

import { join } from "node:path";
import type { POST as createKeyRoute } from "#routes/filtration/management/api-keys/index.ts";
import { buildHttpGateway } from "#routes/gateways.ts";
import type { POST as deployRoute } from "#routes/orchestration/deployment/deploy.ts";
import type { GET as statusRoute } from "#routes/orchestration/deployment/status/[deployment_id].ts";
import { type TinyGgufOptions, writeTinyGguf } from "#scripts/make-tiny-gguf.ts";
import { withInference } from "#server/compose.ts";
import { listen } from "#server/http/listen.ts";
import { startReconciler } from "#services/orchestration/reconciler.ts";
import {
  createPool,
  eventually,
  type OrchestrationTest,
  startOrchestrationTest,
} from "../orchestration/support.ts";
import { call } from "../support/app.ts";
import { inProcessInference } from "../support/inference.ts";

export interface TinyDeployment {
  /** The platform behind it (its administrator's token, its in-process gateways). */
  o: OrchestrationTest;
  /** http://127.0.0.1:port/v1 of the inference gateway. */
  baseUrl: string;
  apiKey: string;
  model: string;
  close(): Promise<void>;
}

export interface TinyOptions {
  /** How the tiny model is made (scripts/make-tiny-gguf.ts); its training context 4096 unless set. */
  gguf?: TinyGgufOptions;
  /** The worker's context (CONTEXT_SIZE, through the deployment's `configuration.context_size`). */
  contextSize?: number;
}

export async function startTinyDeployment(
  model = "tiny-chat",
  options: TinyOptions = {},
): Promise<TinyDeployment> {
  const o = await startOrchestrationTest();
  o.t.app = withInference(o.t.app, inProcessInference(o.t.app));
  const orchestration = listen(o.t.app, "orchestration", 0, await buildHttpGateway(o.t.app, "orchestration"));
  const inference = listen(o.t.app, "inference", 0, await buildHttpGateway(o.t.app, "inference"));
  const reconciler = startReconciler(o.t.app, { intervalMs: 200, logPumpMs: 100, restartBaseMs: 200 });
  const modelPath = join(o.t.config.dataDir, "models", "tiny.gguf");
  // Long enough for a tool call's prompt and arguments.
  writeTinyGguf(modelPath, { contextLength: 4096, ...options.gguf });
  const pool = await createPool(o, { provider: "local" });
  const deployed = await call<typeof deployRoute>(o.orchestration, "POST", "/deployment/deploy", {
    token: o.token,
    body: {
      model_name: model,
      pool_id: pool.pool_id,
      engine: "llama.cpp",
      image: "llama.cpp",
      inference_model: modelPath,
      ...(options.contextSize ? { configuration: { context_size: options.contextSize } } : {}),
    },
  });
  if (deployed.status !== 201) throw new Error(`deploy: ${deployed.status} ${JSON.stringify(deployed.body)}`);
  const id = deployed.body.deployment_id;
  const status = async () =>
    (await call<typeof statusRoute>(o.orchestration, "GET", `/deployment/status/${id}`, { token: o.token }))
      .body.status;
  await eventually(async () => (await status()) === "RUNNING", 60_000, "deployment RUNNING");
  const key = await call<typeof createKeyRoute>(o.filtration, "POST", "/management/api-keys", {
    token: o.token,
    body: { name: "tiny" },
  });
  if (key.status !== 201) throw new Error(`api key: ${key.status} ${JSON.stringify(key.body)}`);
  return {
    o,
    baseUrl: `http://127.0.0.1:${inference.port}/v1`,
    apiKey: key.body.key,
    model,
    async close() {
      await call(o.orchestration, "POST", "/deployment/terminate", {
        token: o.token,
        body: { deployment_id: id },
      });
      await eventually(async () => (await status()) === "STOPPED", 30_000, "deployment STOPPED");
      await reconciler.stop();
      await o.t.app.inference?.close();
      await inference.stop(1000);
      await orchestration.stop(1000);
      await o.t.close();
    },
  };
}
