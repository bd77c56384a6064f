// The README's model can run an agent: the tiny model as `bun scripts/make-tiny-gguf.ts` writes it by default,
// served with the worker's default context, answers tool_choice "auto" (every framework's default) with a few
// tools. With the 512-token context it once had, the tools' prompt alone did not fit (400
// context_length_exceeded).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ChatCompletionTool } from "openai/resources/chat/completions";
import { writeTinyGguf } from "#scripts/make-tiny-gguf.ts";
import { killWorkers, startWorker, type Worker } from "./worker-support.ts";

let dir: string;
let worker: Worker;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "walk-through-model-"));
  const modelPath = join(dir, "tiny.gguf");
  writeTinyGguf(modelPath);
  // No CONTEXT_SIZE: the worker's default, as the README's deployment gets it.
  worker = await startWorker({ MODEL_PATH: modelPath, MODEL_NAME: "tiny-chat" });
  // Loading takes well under a second alone; a loaded two-core machine can stretch it past bun's 5 s default.
}, 30_000);

afterAll(() => {
  killWorkers();
  rmSync(dir, { recursive: true, force: true });
});

const tool = (name: string, description: string, property: string): ChatCompletionTool => ({
  type: "function",
  function: {
    name,
    description,
    parameters: {
      type: "object",
      properties: { [property]: { type: "string", description: `The ${property}` } },
      required: [property],
    },
  },
});
const tools = [
  tool("get_weather", "The current weather of a city", "city"),
  tool("get_time", "The local time in a time zone", "timezone"),
  tool("search_web", "Searches the web and returns the top results", "query"),
  tool("send_email", "Sends an e-mail to one recipient", "to"),
];

test('tool_choice "auto" with four tools answers 200 on the default tiny model and context', async () => {
  for (const seed of [1, 2, 3]) {
    const res = await worker.client.chat.completions.create({
      model: "tiny-chat",
      messages: [
        { role: "system", content: "You are a helpful assistant." },
        { role: "user", content: "What is the weather in Paris?" },
      ],
      tools,
      tool_choice: "auto",
      max_tokens: 24,
      seed,
    });
    expect(res.usage?.prompt_tokens).toBeGreaterThan(512);
    const choice = res.choices[0];
    expect(["stop", "length", "tool_calls"]).toContain(choice?.finish_reason ?? "");
    for (const call of choice?.message.tool_calls ?? [])
      if (call.type === "function") expect(() => JSON.parse(call.function.arguments)).not.toThrow();
  }
});
