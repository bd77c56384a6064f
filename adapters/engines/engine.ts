// What an inference engine is to the platform: what it serves, and how one replica of it runs.
// Providers ask the engine for a command (local processes) or, later, an image (container
// providers); every engine serves an OpenAI-compatible /v1/chat/completions.

import type { EngineId } from "#core/domain.ts";
import type { DeploymentConfiguration } from "#core/options.ts";

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

/** How a container provider asks for one replica of an engine. */
export interface ContainerOptions {
  /** The model source (a Hugging Face id, an http(s) URL, or a path inside the image). */
  modelSource: string;
  /** The name the engine answers to in /v1/models (the deployment name). */
  modelName: string;
  gpus: number;
  /** The deployment's `configuration` (max model length, quantization, tensor parallelism, ...). */
  configuration: DeploymentConfiguration;
  /** Further variables (HEARTBEAT_URL, NODE_TOKEN, ...), set last. */
  env?: Record<string, string>;
}

/** One container of an engine, as its documentation gives it. */
export interface ContainerSpec {
  image: string;
  /** Replaces the image's command when set. */
  command?: string[];
  args: string[];
  env: Record<string, string>;
  /** The port the engine serves its OpenAI-compatible API on. */
  port: number;
  /** GET path that answers 200 once the engine serves. */
  healthPath: string;
  gpus: number;
  /** Shared memory the engine needs (MiB), e.g. for tensor parallelism; undefined: the default. */
  shmMib?: number;
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
  /** The container form for remote providers. Absent: the engine has no container image. */
  container?(opts: ContainerOptions): ContainerSpec;
}
