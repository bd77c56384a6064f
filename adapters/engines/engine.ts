// What an inference engine is to the platform: what it serves, and how one replica of it runs.
// Providers ask the engine for a command (local processes) or, later, an image (container
// providers); every engine serves an OpenAI-compatible /v1/chat/completions.
import type { EngineId } from "../../db/schema/deployments.ts";

/** How the local provider asks for one worker process. */
export interface LocalCommandOptions {
  /** Absolute path of the model file. */
  modelPath: string;
  /** 0 lets the worker pick a free port; it prints it in its ready line. */
  port: number;
  /** The name the worker answers to in /v1/models (the deployment name). */
  modelName: string;
  threads?: number;
  parallel?: number;
  /** Further variables for the worker (HOST, CONTEXT_SIZE, HEARTBEAT_URL, NODE_TOKEN, ...), set last. */
  env?: Record<string, string>;
}

export interface Engine {
  id: EngineId;
  /** GET path that answers 200 once the engine serves. */
  healthPath?: string;
  /**
   * argv and variables of one worker process, which prints `{"event":"ready","port":N}` on stdout
   * when it serves, or `{"event":"fatal","reason":"..."}` and exits 2 when it cannot start.
   * Absent: the engine cannot run as a process of this machine.
   */
  localCommand?(opts: LocalCommandOptions): { cmd: string[]; env: Record<string, string> };
}
