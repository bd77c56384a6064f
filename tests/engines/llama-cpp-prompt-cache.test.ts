// The worker keeps each sequence's tokens between requests (issue #29): through its HTTP API, with the openai SDK,
// a conversation's next turn reuses the turns before it (usage.prompt_tokens_details.cached_tokens, plain and
// streamed, and the per-request log line), grammars, tools and logprobs work on a kept sequence, an aborted
// stream leaves a sequence the next request reuses, a request takes the sequence holding its longest prefix, and
// a new conversation evicts the least recently used one.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type OpenAI from "openai";
import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";
import { writeTinyGguf } from "#scripts/make-tiny-gguf.ts";
import { killWorkers, startWorker, type Worker, weather } from "./worker-support.ts";

// A worker start and a conversation on a loaded 2-core machine can pass bun's 5 s default.
setDefaultTimeout(60_000);

let dir: string;
let modelPath: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "llama-prompt-cache-"));
  modelPath = join(dir, "tiny.gguf");
  writeTinyGguf(modelPath, { eogBias: -30, contextLength: 4096 });
});

afterAll(() => {
  killWorkers();
  rmSync(dir, { recursive: true, force: true });
});

/** The worker's per-request log lines, as they come. */
interface CompletionLog {
  /** Resolves with the first `count` completion lines once they have arrived (stderr lags the HTTP answer). */
  first(count: number): Promise<{ cached_tokens: number; prompt_tokens: number }[]>;
}

/** A worker whose stderr (JSON log lines, debug level) is collected as it comes. */
async function workerWithLog(parallel: number): Promise<{ worker: Worker; completions: CompletionLog }> {
  const worker = await startWorker({
    MODEL_PATH: modelPath,
    MODEL_NAME: "tiny",
    PARALLEL: String(parallel),
    CONTEXT_SIZE: "4096",
    LOG_LEVEL: "debug",
  });
  const lines: string[] = [];
  let arrived = () => {};
  void (async () => {
    const decoder = new TextDecoder();
    let rest = "";
    const reader = worker.proc.stderr.getReader();
    for (let read = await reader.read(); !read.done; read = await reader.read()) {
      rest += decoder.decode(read.value, { stream: true });
      const parts = rest.split("\n");
      rest = parts.pop() ?? "";
      lines.push(...parts.filter((line) => line.includes('"msg":"completion"')));
      arrived();
    }
  })();
  const completions: CompletionLog = {
    async first(count) {
      while (lines.length < count) await new Promise<void>((resolve) => (arrived = resolve));
      return lines.slice(0, count).map((line) => JSON.parse(line));
    },
  };
  return { worker, completions };
}

const opening = (name: string): ChatCompletionMessageParam[] => [
  { role: "system", content: `${name}. You are a patient assistant who answers questions about the world.` },
  { role: "user", content: "Tell me about the world." },
];

async function turn(worker: Worker, messages: ChatCompletionMessageParam[], extra: object = {}) {
  const res = await worker.client.chat.completions.create({
    model: "tiny",
    messages,
    max_tokens: 16,
    temperature: 0,
    seed: 3,
    ...extra,
  });
  return {
    res,
    cached: res.usage?.prompt_tokens_details?.cached_tokens,
    prompt: res.usage?.prompt_tokens ?? 0,
  };
}

const next = (
  messages: ChatCompletionMessageParam[],
  answer: string | null,
  question: string,
): ChatCompletionMessageParam[] => [
  ...messages,
  { role: "assistant", content: answer ?? "" },
  { role: "user", content: question },
];

describe("one sequence kept between requests", () => {
  let worker: Worker;
  let completions: CompletionLog;

  beforeAll(async () => {
    ({ worker, completions } = await workerWithLog(1));
  });

  test("turn 2 reuses turn 1: cached_tokens in the body, the streamed usage chunk and the log line", async () => {
    const messages = opening("Counting");
    const first = await turn(worker, messages);
    // A brand-new prompt on an empty sequence: nothing reused.
    expect(first.cached).toBe(0);
    const second = next(messages, first.res.choices[0]?.message.content ?? null, "And then?");
    const stream = await worker.client.chat.completions.create({
      model: "tiny",
      messages: second,
      max_tokens: 16,
      temperature: 0,
      stream: true,
      stream_options: { include_usage: true },
    });
    let usage: OpenAI.CompletionUsage | undefined;
    for await (const chunk of stream) if (chunk.usage) usage = chunk.usage;
    const cached = usage?.prompt_tokens_details?.cached_tokens ?? -1;
    // Turn 1's whole prompt at least (its answer was re-tokenized, so maybe not all of it), never the whole of
    // turn 2's prompt: its new tail was evaluated.
    expect(cached).toBeGreaterThanOrEqual(first.prompt);
    expect(cached).toBeLessThan(usage?.prompt_tokens ?? 0);
    // The same request again: everything but the last prompt token is reused.
    const again = await turn(worker, second);
    expect(again.cached).toBe(again.prompt - 1);
    const logged = await completions.first(3);
    expect(logged.map((entry) => entry.cached_tokens)).toEqual([0, cached, again.prompt - 1]);
  });

  test("cache_prompt: false (llama-server's extension) evaluates the whole prompt, with the same answer", async () => {
    const messages = opening("Uncached");
    const first = await turn(worker, messages);
    const reused = await turn(worker, messages);
    expect(reused.cached).toBe(reused.prompt - 1);
    const whole = await turn(worker, messages, { cache_prompt: false });
    expect(whole.cached).toBe(0);
    expect(whole.res.choices[0]?.message.content).toBe(first.res.choices[0]?.message.content ?? "");
  });

  test("an aborted stream leaves a sequence the next request reuses, with the same answer", async () => {
    const messages = opening("Aborting");
    const before = await turn(worker, messages, { max_tokens: 8 });
    const longer = next(messages, before.res.choices[0]?.message.content ?? null, "Tell me a long story.");
    const leaving = new AbortController();
    const stream = await worker.client.chat.completions.create(
      { model: "tiny", messages: longer, max_tokens: 1000, stream: true },
      { signal: leaving.signal },
    );
    let pieces = 0;
    try {
      for await (const chunk of stream) {
        if (chunk.choices[0]?.delta.content) pieces += 1;
        if (pieces === 5) leaving.abort();
      }
    } catch (error) {
      expect(leaving.signal.aborted).toBe(true);
      expect(error).toBeInstanceOf(Error);
    }
    expect(pieces).toBe(5);
    // Turn 1's prompt is a prefix of what the aborted request left in the sequence.
    const after = await turn(worker, messages, { max_tokens: 8 });
    expect(after.cached).toBe(after.prompt - 1);
    expect(after.res.choices[0]?.message.content).toBe(before.res.choices[0]?.message.content ?? "");
    expect(after.res.usage?.completion_tokens).toBe(8);
  });

  test("json_schema, tool calls and logprobs on a kept sequence", async () => {
    const messages = opening("Structured");
    const first = await turn(worker, messages);
    const second = next(messages, first.res.choices[0]?.message.content ?? null, "Answer in JSON.");
    const json = await turn(worker, second, {
      max_tokens: 60,
      response_format: {
        type: "json_schema",
        json_schema: {
          name: "verdict",
          strict: true,
          schema: {
            type: "object",
            properties: { ok: { type: "boolean" }, color: { type: "string", enum: ["red", "green"] } },
            required: ["ok", "color"],
            additionalProperties: false,
          },
        },
      },
    });
    expect(json.cached).toBeGreaterThanOrEqual(first.prompt);
    const parsed = JSON.parse(json.res.choices[0]?.message.content ?? "") as { ok: unknown; color: unknown };
    expect(typeof parsed.ok).toBe("boolean");
    expect(["red", "green"]).toContain(parsed.color as string);

    const withLogprobs = await turn(worker, second, { logprobs: true, top_logprobs: 2 });
    expect(withLogprobs.cached).toBe(withLogprobs.prompt - 1);
    expect(withLogprobs.res.choices[0]?.logprobs?.content?.length).toBe(16);

    const third = next(second, json.res.choices[0]?.message.content ?? null, "What is the weather?");
    const call = await turn(worker, third, {
      max_tokens: 120,
      tools: [{ type: "function", function: { name: "get_weather", parameters: weather } }],
      tool_choice: "required",
    });
    // A forced call adds its instructions to the system prompt: the prefix up to there is reused.
    expect(call.cached).toBeGreaterThan(0);
    expect(call.res.choices[0]?.finish_reason).toBe("tool_calls");
    const toolCall = call.res.choices[0]?.message.tool_calls?.[0];
    const args = JSON.parse(toolCall?.type === "function" ? toolCall.function.arguments : "") as {
      unit: string;
    };
    expect(["celsius", "fahrenheit"]).toContain(args.unit);
  });
});

describe("several kept sequences", () => {
  test("a turn goes to the sequence holding its conversation; a new one evicts the least recently used", async () => {
    const { worker } = await workerWithLog(2);
    // Different from their first word: beyond the chat template's few tokens they share nothing.
    const a = opening("Alpha conversation");
    const b = opening("Bravo conversation");
    const a1 = await turn(worker, a);
    const b1 = await turn(worker, b);
    expect([a1.cached, b1.cached]).toEqual([0, 0]);
    // Each turn 2 finds its own turn 1 on one of the two sequences.
    const a2m = next(a, a1.res.choices[0]?.message.content ?? null, "Go on.");
    const b2m = next(b, b1.res.choices[0]?.message.content ?? null, "Go on.");
    const a2 = await turn(worker, a2m);
    const b2 = await turn(worker, b2m);
    expect(a2.cached).toBeGreaterThanOrEqual(a1.prompt);
    expect(b2.cached).toBeGreaterThanOrEqual(b1.prompt);
    // A third conversation shares only template tokens with both: it takes the least recently used sequence,
    // Alpha's (its turn 2 came before Bravo's).
    const c1 = await turn(worker, opening("Charlie conversation"));
    expect(c1.cached).toBeLessThan(c1.prompt / 10);
    // Bravo's turn 3 still finds it; Alpha's was overwritten.
    const b3 = await turn(worker, next(b2m, b2.res.choices[0]?.message.content ?? null, "More."));
    expect(b3.cached).toBeGreaterThanOrEqual(b2.prompt);
    const a3 = await turn(worker, next(a2m, a2.res.choices[0]?.message.content ?? null, "More."));
    expect(a3.cached).toBeLessThan(a1.prompt);
  });
});
