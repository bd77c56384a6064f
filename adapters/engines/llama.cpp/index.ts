// The llama.cpp engine: GGUF models on CPU through node-llama-cpp, served by a worker process with an
// OpenAI-compatible API (README.md). This file says how to start that worker on this machine.
import { fileURLToPath } from "node:url";

/** Absolute path of the worker's entry file. */
export const workerEntry: string = fileURLToPath(new URL("./worker.ts", import.meta.url));

export interface LocalCommandOptions {
  modelPath: string;
  /** 0: the worker picks a free port and reports it in its ready line. */
  port: number;
  modelName: string;
  threads?: number;
  parallel?: number;
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

/** The command and environment (to add to the parent's) that start a worker serving one model. */
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
  return { cmd: [process.execPath, workerEntry], env };
}
