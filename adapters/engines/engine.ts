// What an inference engine is to the platform: what it can load, and how one replica of it runs.
// Providers ask the engine for a command (local processes) or an image (container providers,
// later); every engine serves an OpenAI-compatible /v1/chat/completions.
import type { EngineId } from "../../db/schema/deployments.ts";

export interface LocalWorkerSpec {
  /** Absolute path of the model file. */
  modelPath: string;
  /** The name the worker answers to in /v1/models and in `model` (the deployment name). */
  modelName: string;
  host: string;
  /** 0 lets the worker pick a free port; it prints it in its ready line. */
  port: number;
  threads?: number | undefined;
  parallel?: number | undefined;
  contextSize?: number | undefined;
  heartbeat?:
    | { url: string; nodeToken: string; intervalMs: number; providerInstanceId: string; poolProvider: string }
    | undefined;
}

export interface LocalCommand {
  /** argv, the program first. */
  command: string[];
  env: Record<string, string>;
}

export interface Engine {
  id: EngineId;
  summary: string;
  /** Model file formats it loads ("gguf"); empty for engines that serve an existing endpoint. */
  modelFormats: readonly string[];
  /** Runs one replica as a process of this machine. Absent: the engine cannot run locally. */
  localCommand?(spec: LocalWorkerSpec): LocalCommand;
}
