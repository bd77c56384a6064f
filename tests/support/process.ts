// Runs `bun main.ts` as a real process, as a user would, and waits for its "ready" line.

import { join } from "node:path";
import type { Subprocess } from "bun";
import { jscOptions } from "#server/jsc-options.ts";

export interface RunningPlatform {
  proc: Subprocess<"ignore", "pipe", "pipe">;
  ports: Record<string, number>;
  startupMs: number;
  output: string[];
  /** Everything the process wrote to stderr, once it has ended. */
  stderr: Promise<string>;
  stop(signal?: NodeJS.Signals): Promise<number>;
}

const root = join(import.meta.dir, "..", "..");

/** All ports 0 (ephemeral) unless the env says otherwise. */
export const ephemeralPorts = {
  INFERENCE_PORT: "0",
  FILTRATION_PORT: "0",
  ORCHESTRATION_PORT: "0",
  GRPC_PORT: "0",
  DASHBOARD_PORT: "0",
  HOST: "127.0.0.1",
};

export async function runPlatform(env: Record<string, string>, timeoutMs = 30_000): Promise<RunningPlatform> {
  const proc = Bun.spawn(["bun", "main.ts"], {
    cwd: root,
    // Tests write their model files into the data directory: it is their model directory.
    env: {
      ...process.env,
      ...jscOptions,
      LOG_LEVEL: "info",
      ...ephemeralPorts,
      MODELS_DIR: env.DATA_DIR ?? "",
      ...env,
    },
    stdout: "pipe",
    stderr: "pipe",
    stdin: "ignore",
  });
  const output: string[] = [];
  const stderr = new Response(proc.stderr).text();
  const reader = proc.stdout.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  const deadline = Date.now() + timeoutMs;
  let ready: { listeners: Record<string, number>; startup_ms: number } | undefined;
  while (!ready) {
    if (Date.now() > deadline) {
      proc.kill("SIGKILL");
      throw new Error(`platform not ready within ${timeoutMs} ms:\n${output.join("\n")}`);
    }
    const { value, done } = await reader.read();
    if (done)
      throw new Error(`platform exited (${await proc.exited}):\n${output.join("\n")}\n${await stderr}`);
    buffer += decoder.decode(value, { stream: true });
    let nl = buffer.indexOf("\n");
    while (nl >= 0) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      output.push(line);
      if (line.startsWith("{") && line.includes('"msg":"ready"')) ready = JSON.parse(line);
      nl = buffer.indexOf("\n");
    }
  }
  // Keep draining so the child never blocks on a full pipe.
  (async () => {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      output.push(...decoder.decode(value).split("\n").filter(Boolean));
    }
  })();
  return {
    proc,
    ports: ready.listeners,
    startupMs: ready.startup_ms,
    output,
    stderr,
    async stop(signal = "SIGTERM") {
      proc.kill(signal);
      return proc.exited;
    },
  };
}
