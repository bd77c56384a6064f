// The platform started in the benchmark's own process on a fresh DATA_DIR, every port picked free, the
// first administrator signed in: what a benchmark that deploys and calls through the API starts from.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { Type as T } from "@sinclair/typebox";
import { gateways } from "#routes/gateways.ts";
import { loadConfig } from "#server/config.ts";
import { createLogger } from "#server/log.ts";
import { startPlatform } from "#server/start/platform.ts";
import { api } from "./platform-api.ts";

type Gateway = "filtration" | "orchestration" | "inference";

export async function startBenchPlatform(options: {
  services: Gateway[];
  /** Model directories beside the data directory (where the tiny model is written). */
  modelDirs?: string[];
  prefix: string;
}) {
  const dataDir = mkdtempSync(join(tmpdir(), options.prefix));
  const password = "bench password 123";
  const ports = Object.fromEntries(options.services.map((s) => [`${s.toUpperCase()}_PORT`, "0"]));
  const config = loadConfig({
    DATA_DIR: dataDir,
    MODELS_DIR: [dataDir, ...(options.modelDirs ?? [])].join(delimiter),
    SERVICES: options.services.join(","),
    HOST: "127.0.0.1",
    ...ports,
    GRPC_PORT: "0",
    ADMIN_PASSWORD: password,
    LOG_LEVEL: "warn",
  });
  const platform = await startPlatform(config, createLogger(config.logLevel), gateways);
  const url = (gateway: Gateway) => `http://127.0.0.1:${platform.portOf(gateway)}`;

  const signIn = async () =>
    (
      await api(T.Object({ access_token: T.String() }), url("filtration"), "/auth/login", {
        email: config.adminEmail,
        password,
      })
    ).access_token;

  /** Terminates a deployment and waits (up to about 10 s) until it is STOPPED or FAILED. */
  async function terminate(deploymentId: string, token: string): Promise<void> {
    const orchestration = url("orchestration");
    await api(
      T.Unknown(),
      orchestration,
      "/deployment/terminate",
      { deployment_id: deploymentId },
      token,
    ).catch(() => {});
    for (let i = 0; i < 100; i++) {
      const d = await api(
        T.Object({ status: T.String() }),
        orchestration,
        `/deployment/status/${deploymentId}`,
        undefined,
        token,
      ).catch(() => ({ status: "STOPPED" }));
      if (d.status === "STOPPED" || d.status === "FAILED") break;
      await Bun.sleep(100);
    }
  }

  /** Creates the pool "bench" (local workers); its id. */
  const createBenchPool = async (token: string) =>
    (
      await api(
        T.Object({ pool_id: T.String() }),
        url("orchestration"),
        "/deployment/createpool",
        { pool_name: "bench" },
        token,
      )
    ).pool_id;

  /** Deploys `model` (a GGUF path) as "bench" on llama.cpp in the pool; the deployment's id. */
  async function deployBench(
    poolId: string,
    model: string,
    configuration: Record<string, number>,
    token: string,
  ) {
    const body = {
      model_name: "bench",
      pool_id: poolId,
      image: "llama.cpp",
      inference_model: model,
      configuration,
    };
    const deployed = await api(
      T.Object({ deployment_id: T.String() }),
      url("orchestration"),
      "/deployment/deploy",
      body,
      token,
    );
    return deployed.deployment_id;
  }

  return {
    dataDir,
    url,
    api,
    signIn,
    terminate,
    createBenchPool,
    deployBench,
    async stop() {
      await platform.stop(1000);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
