// PROVISIONAL (orchestration branch): the llama.cpp engine as the orchestration needs it, written
// against the worker's env/stdout contract until the llama branch brings the real adapter.
import { join } from "node:path";
import type { Engine } from "../engine.ts";

const worker = join(import.meta.dir, "worker.ts");

export const llamaCppEngine: Engine = {
  id: "llama.cpp",
  summary: "GGUF models on CPU (or GPU) through node-llama-cpp",
  modelFormats: ["gguf"],
  localCommand(spec) {
    const env: Record<string, string> = {
      MODEL_PATH: spec.modelPath,
      MODEL_NAME: spec.modelName,
      HOST: spec.host,
      PORT: String(spec.port),
    };
    if (spec.threads) env.THREADS = String(spec.threads);
    if (spec.parallel) env.PARALLEL = String(spec.parallel);
    if (spec.contextSize) env.CONTEXT_SIZE = String(spec.contextSize);
    if (spec.heartbeat) {
      env.HEARTBEAT_URL = spec.heartbeat.url;
      env.NODE_TOKEN = spec.heartbeat.nodeToken;
      env.HEARTBEAT_INTERVAL_MS = String(spec.heartbeat.intervalMs);
      env.POOL_PROVIDER = spec.heartbeat.poolProvider;
      if (spec.heartbeat.providerInstanceId) env.PROVIDER_INSTANCE_ID = spec.heartbeat.providerInstanceId;
    }
    return { command: [process.execPath, worker], env };
  },
};
