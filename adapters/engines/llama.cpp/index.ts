// The llama.cpp engine: GGUF models through node-llama-cpp, served by a worker process with an
// OpenAI-compatible API (README.md). This file says how to start that worker on this machine; the
// local provider spawns `localCommand(...)` and reads the ready (or fatal) line on stdout.
import { fileURLToPath } from "node:url";
import type { Engine, LocalCommandOptions as EngineCommandOptions } from "../engine.ts";
import { llamaCppContainer } from "./container.ts";

/** Absolute path of the worker's entry file. */
export const workerEntry: string = fileURLToPath(new URL("./worker.ts", import.meta.url));

export interface LocalCommandOptions extends EngineCommandOptions {
  /** Tokens per sequence. */
  contextSize?: number;
  heartbeat?: {
    url: string;
    nodeToken: string;
    intervalMs?: number;
    providerInstanceId: string;
    provider: string;
  };
}

/** The command and the variables (to add to the parent's) that start a worker serving one model. */
export function localCommand(opts: LocalCommandOptions): { cmd: string[]; env: Record<string, string> } {
  const env: Record<string, string> = {
    MODEL_PATH: opts.modelPath,
    PORT: String(opts.port),
    MODEL_NAME: opts.modelName,
  };
  if (opts.threads !== undefined) env.THREADS = String(opts.threads);
  if (opts.parallel !== undefined) env.PARALLEL = String(opts.parallel);
  if (opts.contextSize !== undefined) env.CONTEXT_SIZE = String(opts.contextSize);
  if (opts.heartbeat) {
    env.HEARTBEAT_URL = opts.heartbeat.url;
    env.NODE_TOKEN = opts.heartbeat.nodeToken;
    env.PROVIDER_INSTANCE_ID = opts.heartbeat.providerInstanceId;
    env.POOL_PROVIDER = opts.heartbeat.provider;
    if (opts.heartbeat.intervalMs !== undefined)
      env.HEARTBEAT_INTERVAL_MS = String(opts.heartbeat.intervalMs);
  }
  // process.execPath is the Bun running the orchestrator: the worker runs on the same one.
  return { cmd: [process.execPath, workerEntry], env: { ...env, ...opts.env } };
}

export const llamaCppEngine = {
  id: "llama.cpp",
  healthPath: "/health",
  localCommand,
  container: llamaCppContainer,
} as const satisfies Engine;
