// What the llama.cpp engine is, for the platform: how to start a worker and how to tell it is healthy.
// The worker itself is worker.ts; the orchestrator spawns `localCommand(...)` and reads the ready line on stdout.
import { fileURLToPath } from "node:url";

export type LocalCommandOptions = {
  modelPath: string;
  /** 0 lets the worker pick a free port; it reports the port in its ready line. */
  port: number;
  modelName: string;
  /** CPU threads; undefined lets the worker use the cores it may run on. */
  threads?: number;
  /** Requests generated at once; undefined: the worker's default (4). */
  parallel?: number;
  /** Further variables for the worker (HEARTBEAT_URL, NODE_TOKEN, LLAMA_GPU, CONTEXT_SIZE, ...), set last. */
  env?: Record<string, string>;
};

export type EngineDescriptor = {
  id: string;
  /** GET path that answers 200 once the model is loaded. */
  healthPath: string;
  servesChatCompletions: boolean;
  /**
   * The command that starts one worker, and the variables it needs. The caller spawns it with these variables
   * merged over its own environment (PATH, HOME), and waits for `{"event":"ready","port":N}` or
   * `{"event":"fatal","reason":"..."}` (exit code 2) on stdout.
   */
  localCommand(opts: LocalCommandOptions): { cmd: string[]; env: Record<string, string> };
};

const workerPath = fileURLToPath(new URL("./worker.ts", import.meta.url));

export const llamaCppEngine = {
  id: "llama.cpp",
  healthPath: "/health",
  servesChatCompletions: true,
  localCommand(opts) {
    return {
      // process.execPath is the Bun binary running the orchestrator: the worker runs on the same one.
      cmd: [process.execPath, workerPath],
      env: {
        MODEL_PATH: opts.modelPath,
        PORT: String(opts.port),
        MODEL_NAME: opts.modelName,
        ...(opts.threads === undefined ? {} : { THREADS: String(opts.threads) }),
        ...(opts.parallel === undefined ? {} : { PARALLEL: String(opts.parallel) }),
        ...opts.env,
      },
    };
  },
} as const satisfies EngineDescriptor;
