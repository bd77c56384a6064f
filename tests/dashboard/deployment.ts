// A RUNNING llama.cpp deployment of the tiny GGUF on a local pool of a browser test's platform, made
// through the orchestration HTTP API with the administrator's token, as the gateway end-to-end test does.
import { join } from "node:path";
import type { POST as login } from "#routes/filtration/auth/login.ts";
import type { POST as createPool } from "#routes/orchestration/deployment/createpool.ts";
import type { POST as deploy } from "#routes/orchestration/deployment/deploy.ts";
import type { GET as listDeployments } from "#routes/orchestration/deployment/deployments.ts";
import type { GET as deploymentStatus } from "#routes/orchestration/deployment/status/[deployment_id].ts";
import { writeTinyGguf } from "#scripts/make-tiny-gguf.ts";
import { adminEmail, adminPassword, type BodyOf, fetchJson } from "../support/app.ts";
import { until } from "../support/wait.ts";
import type { BrowserPlatform } from "./browser.ts";

/**
 * A JSON request to one of the platform's HTTP APIs; throws unless the answer is 2xx. The answer is typed
 * as `call` types it: `apiJson<typeof GET>(...)` with a route's export, or the shape the caller reads.
 */
export async function apiJson<R = unknown>(
  url: string,
  method: string,
  body?: unknown,
  token?: string,
): Promise<BodyOf<R>> {
  const res = await fetchJson<R>(url, { method, body, token });
  if (res.status < 200 || res.status > 299)
    throw new Error(`${method} ${url}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

export async function adminToken(bp: BrowserPlatform): Promise<string> {
  const session = await apiJson<typeof login>(`${bp.filtrationUrl}/auth/login`, "POST", {
    email: adminEmail,
    password: adminPassword,
  });
  return session.access_token;
}

/** Deploys the tiny model as `name` and waits (up to 60 s) for RUNNING; answers its id. */
export async function runningTinyDeployment(bp: BrowserPlatform, name: string): Promise<string> {
  const token = await adminToken(bp);
  const modelPath = join(bp.dataDir, "models", "tiny.gguf");
  writeTinyGguf(modelPath, { eogBias: -30 });
  const pool = await apiJson<typeof createPool>(
    `${bp.orchestrationUrl}/deployment/createpool`,
    "POST",
    { pool_name: `pool-${crypto.randomUUID().slice(0, 6)}`, provider: "local" },
    token,
  );
  const deployed = await apiJson<typeof deploy>(
    `${bp.orchestrationUrl}/deployment/deploy`,
    "POST",
    {
      model_name: name,
      pool_id: pool.pool_id,
      engine: "llama.cpp",
      image: "llama.cpp",
      inference_model: modelPath,
    },
    token,
  );
  const id = deployed.deployment_id;
  // The platform runs in another process: its deployment's status is asked for.
  let last: { status?: string } = {};
  const status = await until(
    async () => {
      last = await apiJson<typeof deploymentStatus>(
        `${bp.orchestrationUrl}/deployment/status/${id}`,
        "GET",
        undefined,
        token,
      );
      return (last.status === "RUNNING" || last.status === "FAILED") && last;
    },
    { what: () => `the deployment RUNNING (still ${last.status})`, timeoutMs: 60_000, intervalMs: 250 },
  );
  if (status.status === "FAILED") throw new Error(`deployment failed: ${JSON.stringify(status)}`);
  return id;
}

/** Stops the platform's deployments so their workers do not outlive the test. */
export async function stopDeployments(bp: BrowserPlatform): Promise<void> {
  const token = await adminToken(bp);
  const list = await apiJson<typeof listDeployments>(
    `${bp.orchestrationUrl}/deployment/deployments`,
    "GET",
    undefined,
    token,
  );
  for (const d of list.deployments ?? []) {
    await apiJson(
      `${bp.orchestrationUrl}/deployment/terminate`,
      "POST",
      { deployment_id: d.deployment_id },
      token,
    ).catch(() => {});
  }
  try {
    await until(
      async () => {
        const l = await apiJson<typeof listDeployments>(
          `${bp.orchestrationUrl}/deployment/deployments`,
          "GET",
          undefined,
          token,
        );
        return l.deployments.every((d) => d.status === "STOPPED");
      },
      { what: "every deployment STOPPED", timeoutMs: 30_000, intervalMs: 250 },
    );
  } catch {
    // Clean-up at the end of a test: what is still running is stopped with the platform.
  }
}
