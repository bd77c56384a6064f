// Spawning the real llama.cpp worker for tests: the process, its ready line, an openai client pointed at it.
import { expect } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import OpenAI from "openai";
import { workerEntry } from "#adapters/engines/llama.cpp/index.ts";
import { writeTinyGguf } from "#scripts/make-tiny-gguf.ts";
import { within } from "../support/wait.ts";

export interface Worker {
  proc: Bun.Subprocess<"ignore", "pipe", "pipe">;
  port: number;
  client: OpenAI;
  base: string;
}

const spawned: Bun.Subprocess[] = [];

export function spawnWorker(env: Record<string, string>): Bun.Subprocess<"ignore", "pipe", "pipe"> {
  const proc = Bun.spawn([process.execPath, workerEntry], {
    // THREADS=1: on a small shared machine one thread is ~15x faster than two for a model this small (README).
    env: { ...process.env, PORT: "0", THREADS: "1", LOG_LEVEL: "error", ...env },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  spawned.push(proc);
  return proc;
}

/** The first line the worker prints on stdout, parsed. */
export async function firstLine(
  proc: Bun.Subprocess<"ignore", "pipe", "pipe">,
  timeoutMs = 15_000,
): Promise<Record<string, unknown>> {
  const reader = proc.stdout.getReader();
  const decoder = new TextDecoder();
  let text = "";
  const readLine = async () => {
    while (!text.includes("\n")) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
  };
  await within(readLine(), timeoutMs, "a line on stdout");
  reader.releaseLock();
  return JSON.parse(text.split("\n")[0] ?? "");
}

export async function startWorker(env: Record<string, string>): Promise<Worker> {
  const proc = spawnWorker(env);
  const line = await firstLine(proc);
  expect(line.event).toBe("ready");
  const port = line.port as number;
  const base = `http://127.0.0.1:${port}`;
  return { proc, port, base, client: new OpenAI({ baseURL: `${base}/v1`, apiKey: "unused", maxRetries: 0 }) };
}

/** Kills every worker this test file spawned that still runs. */
export function killWorkers(): void {
  for (const proc of spawned) if (proc.exitCode === null) proc.kill("SIGKILL");
}

export interface TinyWorker {
  worker: Worker;
  /** The temporary directory holding the model. */
  dir: string;
  modelPath: string;
  /** Kills the workers and removes the directory. */
  close(): void;
}

/**
 * The tiny random model in a temporary directory, served by a worker with two sequences of 4096 tokens. Its
 * end-of-generation logits are pushed down (eogBias -30): free text runs to max_tokens, so counts are exact;
 * under a grammar the grammar ends the answer.
 */
export async function startTinyWorker(modelName: string): Promise<TinyWorker> {
  const dir = mkdtempSync(join(tmpdir(), "llama-worker-"));
  const modelPath = join(dir, "tiny.gguf");
  writeTinyGguf(modelPath, { eogBias: -30, contextLength: 4096 });
  const worker = await startWorker({
    MODEL_PATH: modelPath,
    MODEL_NAME: modelName,
    PARALLEL: "2",
    CONTEXT_SIZE: "4096",
  });
  return {
    worker,
    dir,
    modelPath,
    close() {
      killWorkers();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A tool's parameters whose free string is bounded, so that even random weights finish the call in ~90 tokens. */
export const weather = {
  type: "object",
  properties: {
    city: { type: "string", maxLength: 12 },
    unit: { type: "string", enum: ["celsius", "fahrenheit"] },
  },
  required: ["city", "unit"],
  additionalProperties: false,
} as const;

/** Sends a chat request that must be refused: a 400 invalid_request_error, which is returned for its param. */
export async function refusal(
  worker: Worker,
  body: Record<string, unknown>,
): Promise<InstanceType<typeof OpenAI.BadRequestError>> {
  const err = await worker.client.chat.completions
    .create({ model: "any", messages: [{ role: "user", content: "x" }], max_tokens: 3, ...body } as never)
    .catch((e: unknown) => e);
  expect(err).toBeInstanceOf(OpenAI.BadRequestError);
  const bad = err as InstanceType<typeof OpenAI.BadRequestError>;
  expect(bad.type).toBe("invalid_request_error");
  return bad;
}
