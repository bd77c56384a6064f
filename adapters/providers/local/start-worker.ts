// Starting a replica's worker: the engine's local command with the deployment's options, the
// heartbeat variables and the tags that prove later whose worker it is, in an environment that
// carries none of the platform's secrets.
import type { ReplicaHandle, ReplicaSpec } from "../provider.ts";
import { INSTALLATION_ENV, instanceIdOf, launch, REPLICA_ENV } from "./processes.ts";
import { type LocalWorkers, newWorker } from "./workers.ts";

export async function startWorker(local: LocalWorkers, spec: ReplicaSpec): Promise<ReplicaHandle> {
  const engine = local.engines[spec.engine];
  if (!engine?.localCommand) throw new Error(`the ${spec.engine} engine cannot run on this machine`);
  if (!spec.modelPath) throw new Error("no model file to load");
  const heartbeat: Record<string, string> = spec.heartbeat
    ? {
        HEARTBEAT_URL: spec.heartbeat.url,
        NODE_TOKEN: spec.heartbeat.nodeToken,
        HEARTBEAT_INTERVAL_MS: String(spec.heartbeat.intervalMs),
        POOL_PROVIDER: "local",
      }
    : {};
  const { context_size: contextSize, threads, parallel } = spec.configuration;
  const launchSpec = engine.localCommand({
    modelPath: spec.modelPath,
    modelName: spec.deploymentName,
    port: 0,
    // The deployment's configuration was checked when it was written (numbers, where given).
    ...(typeof threads === "number" ? { threads } : {}),
    ...(typeof parallel === "number" ? { parallel } : {}),
    env: { HOST: local.host, ...(contextSize ? { CONTEXT_SIZE: String(contextSize) } : {}), ...heartbeat },
  });
  const env: Record<string, string> = {
    ...inheritedEnv(),
    ...launchSpec.env,
    [REPLICA_ENV]: spec.replicaId,
    [INSTALLATION_ENV]: local.installation,
  };
  // The launching shell sets it to the worker's own pid, the id the database records.
  delete env.PROVIDER_INSTANCE_ID;
  const launched = launch(local.workersDir, spec.replicaId, launchSpec.cmd, env);
  local.known.set(
    spec.replicaId,
    newWorker(launched.pid, launched.child, {
      stdoutPath: launched.stdoutPath,
      stderrPath: launched.stderrPath,
    }),
  );
  return { replicaId: spec.replicaId, providerInstanceId: instanceIdOf(launched.pid), endpoint: null };
}

/**
 * What a worker inherits from this process: what a program needs to run (PATH, HOME, locale) and
 * GPU and llama.cpp settings, never the platform's secrets (JWT_SECRET, INTERNAL_API_KEY,
 * DATABASE_URL, ADMIN_PASSWORD…).
 */
function inheritedEnv(): Record<string, string> {
  const keep =
    /^(PATH|HOME|USER|SHELL|TMPDIR|TMP|TEMP|LANG|LC_\w+|TZ|LOG_LEVEL|LD_LIBRARY_PATH|CUDA_\w+|LLAMA_\w+|NODE_LLAMA_CPP_\w+)$/;
  return Object.fromEntries(
    Object.entries(process.env).filter((e): e is [string, string] => keep.test(e[0]) && e[1] !== undefined),
  );
}
