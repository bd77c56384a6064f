// The worker's environment, read once at start. A bad value is a FatalError: the worker reports it on stdout
// and exits with code 2, as for a bad model.
import { availableParallelism } from "node:os";
import { basename } from "node:path";

export class FatalError extends Error {}

export interface HeartbeatConfig {
  /** The full address to POST to, e.g. http://orchestrator:8080/inventory/heartbeat. */
  url: string;
  nodeToken: string;
  intervalMs: number;
  providerInstanceId: string;
  provider: string;
}

const logLevels = ["debug", "info", "warn", "error", "silent"] as const;

export interface WorkerConfig {
  modelPath: string;
  modelName: string;
  host: string;
  /** 0: the system picks a free port. */
  port: number;
  threads: number;
  parallel: number;
  /** Per sequence; undefined: the default, capped by the model's training length. */
  contextSize: number | undefined;
  heartbeat: HeartbeatConfig | undefined;
  /** The heartbeat's expose_url when HOST:PORT is not how others reach this worker (0.0.0.0, NAT). */
  exposeUrl: string | undefined;
  /** A model that has not loaded by then is reported as fatal rather than left hanging. */
  loadTimeoutMs: number;
  logLevel: (typeof logLevels)[number];
}

export const DEFAULT_CONTEXT_SIZE = 2048;

type Env = Record<string, string | undefined>;

export function readConfig(env: Env): WorkerConfig {
  const modelPath = env.MODEL_PATH?.trim();
  if (!modelPath) throw new FatalError("MODEL_PATH is required");
  const heartbeatUrl = env.HEARTBEAT_URL?.trim();
  const logLevel = env.LOG_LEVEL ?? "warn";
  const checkedLogLevel = logLevels.find((level) => level === logLevel);
  if (checkedLogLevel === undefined) {
    throw new FatalError(
      `LOG_LEVEL must be debug, info, warn, error or silent, not ${JSON.stringify(logLevel)}`,
    );
  }
  return {
    modelPath,
    modelName: env.MODEL_NAME?.trim() || basename(modelPath).replace(/\.gguf$/i, ""),
    host: env.HOST?.trim() || "127.0.0.1",
    port: integer(env, "PORT", 0, 0, 65535),
    // One core is left to the JavaScript thread: measured here, llama.cpp's threads wait on each other
    // every step when they compete with it (2 threads on 2 cores: 160 tokens/s; 1 thread: 1,800).
    threads: integer(env, "THREADS", Math.max(1, availableParallelism() - 1), 1, 1024),
    parallel: integer(env, "PARALLEL", 4, 1, 256),
    contextSize: env.CONTEXT_SIZE
      ? integer(env, "CONTEXT_SIZE", DEFAULT_CONTEXT_SIZE, 16, 10_000_000)
      : undefined,
    heartbeat: heartbeatUrl
      ? {
          url: heartbeatUrl,
          nodeToken: env.NODE_TOKEN ?? "",
          intervalMs: integer(env, "HEARTBEAT_INTERVAL_MS", 10_000, 100, 86_400_000),
          providerInstanceId: env.PROVIDER_INSTANCE_ID ?? "",
          provider: env.POOL_PROVIDER ?? "local",
        }
      : undefined,
    exposeUrl: env.EXPOSE_URL?.trim() || undefined,
    loadTimeoutMs: integer(env, "LOAD_TIMEOUT_MS", 300_000, 1000, 86_400_000),
    logLevel: checkedLogLevel,
  };
}

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new FatalError(`${name} must be an integer from ${min} to ${max}, not ${JSON.stringify(raw)}`);
  }
  return value;
}
