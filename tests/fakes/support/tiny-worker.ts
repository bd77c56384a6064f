// One real llama.cpp worker of the tiny generated model, for the provider fakes to point their
// "running" replicas at: a chat completion through the inference gateway then reaches a real
// engine whichever provider placed it. (A minimal helper of this branch; the container-engines
// branch brings tests/fakes/support/real-worker.ts for the same purpose.)
import { join } from "node:path";
import { localCommand } from "#adapters/engines/llama.cpp/index.ts";
import { writeTinyGguf } from "#scripts/make-tiny-gguf.ts";

export interface TinyWorker {
  /** Base URL without /v1 (http://127.0.0.1:PORT). */
  url: string;
  stop(): Promise<void>;
}

export async function startTinyWorker(dir: string, modelName: string): Promise<TinyWorker> {
  const modelPath = join(dir, "tiny-worker.gguf");
  writeTinyGguf(modelPath);
  return startLlamaWorker(modelPath, modelName);
}

/** A llama.cpp worker of any GGUF file on this machine (benchmarks use it for an embedding model). */
export async function startLlamaWorker(
  modelPath: string,
  modelName: string,
  options: { threads?: number; contextSize?: number } = {},
): Promise<TinyWorker> {
  const { cmd, env } = localCommand({
    modelPath,
    port: 0,
    modelName,
    threads: options.threads ?? 1,
    parallel: 2,
    ...(options.contextSize ? { contextSize: options.contextSize } : {}),
  });
  const child = Bun.spawn(cmd, {
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", HOST: "127.0.0.1", ...env },
    stdout: "pipe",
    stderr: "inherit",
  });
  const reader = child.stdout.getReader();
  const decoder = new TextDecoder();
  let buffered = "";
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const { value, done } = await reader.read();
    if (done) break;
    buffered += decoder.decode(value, { stream: true });
    for (const line of buffered.split("\n")) {
      try {
        const event = JSON.parse(line) as { event?: string; port?: number; reason?: string };
        if (event.event === "fatal") throw new Error(`tiny worker: ${event.reason}`);
        if (event.event === "ready" && event.port) {
          // Keep draining stdout so the worker never blocks on a full pipe.
          void (async () => {
            while (!(await reader.read()).done) {}
          })().catch(() => {});
          return {
            url: `http://127.0.0.1:${event.port}`,
            stop: async () => {
              child.kill();
              await child.exited;
            },
          };
        }
      } catch (error) {
        if (error instanceof Error && error.message.startsWith("tiny worker")) throw error;
      }
    }
  }
  child.kill();
  throw new Error("the tiny worker did not become ready");
}
