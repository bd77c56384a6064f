// The llama.cpp worker as a parent process sees it: spawned for real on a tiny random GGUF, spoken to with
// the official OpenAI SDK. The model's end-of-generation logits are pushed down (eogBias -30), so it always
// writes until max_tokens and the counts below are exact.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import OpenAI from "openai";
import { localCommand, workerEntry } from "#adapters/engines/llama.cpp/index.ts";
import type { OpenAIError } from "#contracts/openai/error.ts";
import { jsonBody } from "../support/json.ts";
import { simulateDelay, within } from "../support/wait.ts";
import {
  firstLine,
  spawnWorker,
  startTinyWorker,
  startWorker,
  type TinyWorker,
  type Worker,
} from "./worker-support.ts";

let tiny: TinyWorker;
let main: Worker;

const user = (content: string) => [{ role: "user" as const, content }];

beforeAll(async () => {
  tiny = await startTinyWorker("tiny-test");
  main = tiny.worker;
});

afterAll(() => tiny.close());

/**
 * A short request after abandoned long ones: served in full, and soon after `started` (4000 tokens take
 * seconds here; had they gone on, this request would have waited for them).
 */
async function expectNextServedAtOnce(started: number): Promise<void> {
  const res = await main.client.chat.completions.create({
    model: "tiny-test",
    messages: user("next"),
    max_tokens: 4,
  });
  expect(res.usage?.completion_tokens).toBe(4);
  expect(performance.now() - started).toBeLessThan(1500);
}
describe("chat completions", () => {
  test("a plain completion parses, and its usage adds up", async () => {
    const res = await main.client.chat.completions.create({
      model: "tiny-test",
      messages: [
        { role: "system", content: "You are terse." },
        { role: "user", content: "hello world" },
      ],
      max_tokens: 12,
    });
    expect(res.object).toBe("chat.completion");
    expect(res.id).toStartWith("chatcmpl-");
    expect(res.model).toBe("tiny-test");
    expect(res.choices).toHaveLength(1);
    expect(res.choices[0]?.message.role).toBe("assistant");
    expect(typeof res.choices[0]?.message.content).toBe("string");
    expect(res.choices[0]?.finish_reason).toBe("length");
    const usage = res.usage;
    expect(usage?.prompt_tokens).toBeGreaterThan(0);
    expect(usage?.completion_tokens).toBeGreaterThan(0);
    expect(usage?.completion_tokens).toBeLessThanOrEqual(12);
    expect(usage?.total_tokens).toBe((usage?.prompt_tokens ?? 0) + (usage?.completion_tokens ?? 0));
  });

  test("max_completion_tokens is honoured like max_tokens", async () => {
    const res = await main.client.chat.completions.create({
      model: "tiny-test",
      messages: user("hi"),
      max_completion_tokens: 3,
    });
    expect(res.choices[0]?.finish_reason).toBe("length");
    expect(res.usage?.completion_tokens).toBe(3);
  });

  test("without a seed, requests in the same second draw their own numbers; with one, they repeat", async () => {
    // node-llama-cpp seeds with the current second when none is given: four asks at once came back as one
    // answer (and a test of stop sequences failed eight times in a row on the same draw).
    const ask = (seed?: number) =>
      main.client.chat.completions.create({
        model: "tiny-test",
        messages: user("say anything"),
        max_tokens: 12,
        temperature: 1,
        ...(seed === undefined ? {} : { seed }),
      });
    const texts = async (seed?: number) =>
      new Set(
        (await Promise.all([ask(seed), ask(seed), ask(seed), ask(seed)])).map(
          (r) => r.choices[0]?.message.content,
        ),
      );
    expect((await texts()).size).toBeGreaterThan(1);
    expect((await texts(42)).size).toBe(1);
  });

  test("a stop sequence ends the answer before it, with finish_reason stop", async () => {
    const ask = (stop?: string) =>
      main.client.chat.completions.create({
        model: "tiny-test",
        messages: user("the end"),
        max_tokens: 48,
        temperature: 0,
        ...(stop ? { stop } : {}),
      });
    const full = (await ask()).choices[0]?.message.content ?? "";
    // Greedy decoding repeats itself exactly, so a printable pair from the middle of the answer is a stop
    // sequence the second answer is bound to meet.
    const at = full.slice(4).search(/[!-~]{2}/) + 4;
    expect(at).toBeGreaterThan(3);
    const stop = full.slice(at, at + 2);
    const res = await ask(stop);
    expect(res.choices[0]?.finish_reason).toBe("stop");
    expect(res.choices[0]?.message.content).toBe(full.slice(0, full.indexOf(stop)));
    // Which stop string ended it, in vLLM's field (the gateway's Messages API reports it as stop_sequence).
    expect(res.choices[0]).toMatchObject({ stop_reason: stop });
    expect((await ask()).choices[0]).not.toHaveProperty("stop_reason");
  });

  test("POST /v1/tokenize counts a chat prompt as a completion of it counts it, without generating", async () => {
    const messages: OpenAI.ChatCompletionMessageParam[] = [
      { role: "system", content: "Be brief." },
      { role: "user", content: "How many tokens is this?" },
    ];
    const body = { model: "tiny-test", messages };
    const counted = await fetch(`${main.base}/v1/tokenize`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    expect(counted.status).toBe(200);
    const { count, max_model_len } = (await counted.json()) as { count: number; max_model_len: number };
    const answered = await main.client.chat.completions.create({ ...body, max_tokens: 1 });
    expect(count).toBe(answered.usage?.prompt_tokens ?? -1);
    expect(max_model_len).toBeGreaterThan(count);
    const refused = await fetch(`${main.base}/v1/tokenize`, { method: "POST", body: "{}" });
    expect(refused.status).toBe(400);
  });

  test("a stream sends the role, content deltas, a finish_reason, then the usage and [DONE]", async () => {
    const stream = await main.client.chat.completions.create({
      model: "tiny-test",
      messages: user("stream please"),
      max_tokens: 10,
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks: OpenAI.ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks[0]?.choices[0]?.delta.role).toBe("assistant");
    const content = chunks.filter((c) => c.choices[0]?.delta.content);
    expect(content.length).toBeGreaterThan(0);
    const finishes = chunks.filter((c) => c.choices[0]?.finish_reason);
    expect(finishes).toHaveLength(1);
    expect(finishes[0]?.choices[0]?.finish_reason).toBe("length");
    const last = chunks.at(-1);
    expect(last?.choices).toEqual([]);
    expect(last?.usage?.completion_tokens).toBe(10);
    expect(last?.usage?.total_tokens).toBe((last?.usage?.prompt_tokens ?? 0) + 10);
    expect(chunks.every((c) => c.object === "chat.completion.chunk" && c.model === "tiny-test")).toBe(true);
  });

  test("without include_usage a stream has no usage chunk, and the raw stream ends with [DONE]", async () => {
    const res = await fetch(`${main.base}/v1/chat/completions`, {
      method: "POST",
      body: JSON.stringify({ messages: user("raw"), max_tokens: 3, stream: true }),
    });
    expect(res.headers.get("content-type")).toStartWith("text/event-stream");
    const events = (await res.text()).split("\n\n").filter(Boolean);
    expect(events.at(-1)).toBe("data: [DONE]");
    expect(events.some((e) => e.includes('"usage"'))).toBe(false);
  });

  test("8 concurrent requests on 2 sequences all succeed", async () => {
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        main.client.chat.completions.create({
          model: "tiny-test",
          messages: user(`request ${i}`),
          max_tokens: 16,
        }),
      ),
    );
    for (const res of results) {
      expect(res.choices[0]?.finish_reason).toBe("length");
      expect(res.usage?.completion_tokens).toBe(16);
    }
  });

  test("aborted streams give their sequences back at once", async () => {
    // Both sequences start answers that would take seconds; the client leaves after the first content.
    const started = performance.now();
    await Promise.all(
      [0, 1].map(async (i) => {
        const stream = await main.client.chat.completions.create({
          model: "tiny-test",
          messages: user(`long ${i}`),
          max_tokens: 4000,
          stream: true,
        });
        for await (const chunk of stream) if (chunk.choices[0]?.delta.content) break;
      }),
    );
    await expectNextServedAtOnce(started);
  });

  test("plain requests whose clients leave give their sequences back too", async () => {
    const started = performance.now();
    const leaving = new AbortController();
    const gone = [0, 1].map((i) =>
      main.client.chat.completions
        .create(
          { model: "tiny-test", messages: user(`long plain ${i}`), max_tokens: 4000 },
          { signal: leaving.signal },
        )
        .catch((e: unknown) => e),
    );
    // The clients leave 150 ms into their answers (the worker says nothing of a request it is serving).
    await simulateDelay(150);
    leaving.abort();
    for (const err of await Promise.all(gone)) expect(err).toBeInstanceOf(OpenAI.APIUserAbortError);
    await expectNextServedAtOnce(started);
  });

  test("a bad body is a 400 in OpenAI's error shape", async () => {
    const err = await main.client.chat.completions
      .create({ model: "tiny-test", messages: [{ role: "wizard", content: "x" }] as never })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    const bad = err as InstanceType<typeof OpenAI.BadRequestError>;
    expect(bad.status).toBe(400);
    expect(bad.type).toBe("invalid_request_error");
    expect(bad.param).toBe("messages[0].role");

    const notJson = await fetch(`${main.base}/v1/chat/completions`, { method: "POST", body: "{nope" });
    expect(notJson.status).toBe(400);
    const body = await jsonBody<OpenAIError>(notJson);
    expect(Object.keys(body.error).sort()).toEqual(["code", "message", "param", "type"]);
    expect(body.error.type).toBe("invalid_request_error");
  });

  test("a prompt longer than the context is a 400 context_length_exceeded", async () => {
    const res = await fetch(`${main.base}/v1/chat/completions`, {
      method: "POST",
      body: JSON.stringify({ messages: user("x ".repeat(3000)) }),
    });
    expect(res.status).toBe(400);
    const body = await jsonBody<OpenAIError>(res);
    expect(body.error.code).toBe("context_length_exceeded");
  });
});

describe("other routes", () => {
  test("/v1/models lists the one model", async () => {
    const list = await main.client.models.list();
    expect(list.data).toHaveLength(1);
    expect(list.data[0]).toMatchObject({ id: "tiny-test", object: "model", owned_by: "llama.cpp" });
    expect(typeof list.data[0]?.created).toBe("number");
  });

  test("/health answers ok", async () => {
    const res = await fetch(`${main.base}/health`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: "ok" });
  });
});

describe("start-up failures", () => {
  const expectFatal = async (path: string, reason: RegExp) => {
    const started = performance.now();
    const proc = spawnWorker({ MODEL_PATH: path });
    const line = await firstLine(proc);
    expect(line.event).toBe("fatal");
    expect(line.reason).toMatch(reason);
    expect(await proc.exited).toBe(2);
    expect(performance.now() - started).toBeLessThan(10_000);
  };

  test("a missing model exits with code 2 and says so", async () => {
    const missing = join(tiny.dir, "nowhere.gguf");
    await expectFatal(missing, new RegExp(`^model file not found: ${missing}$`));
  });

  test("a file of random bytes exits with code 2", async () => {
    const corrupt = join(tiny.dir, "random.gguf");
    writeFileSync(corrupt, crypto.getRandomValues(new Uint8Array(4096)));
    await expectFatal(corrupt, /^not a valid GGUF model: .*GGUF magic/);
  });

  test("a truncated GGUF exits with code 2", async () => {
    const truncated = join(tiny.dir, "truncated.gguf");
    writeFileSync(truncated, (await Bun.file(tiny.modelPath).bytes()).subarray(0, 300_000));
    await expectFatal(truncated, /^not a valid GGUF model: .*(corrupted or incomplete|failed to read)/);
  });
});

describe("heartbeats and shutdown", () => {
  test("heartbeats reach the orchestrator with the node token, and SIGTERM mid-answer exits 0", async () => {
    const beats: { auth: string | null; body: Record<string, unknown> }[] = [];
    const twoBeats = Promise.withResolvers<void>();
    using stub = Bun.serve({
      port: 0,
      async fetch(req) {
        beats.push({
          auth: req.headers.get("authorization"),
          body: (await req.json()) as Record<string, unknown>,
        });
        if (beats.length >= 2) twoBeats.resolve();
        return Response.json({ ok: true });
      },
    });
    const { env } = localCommand({
      modelPath: tiny.modelPath,
      port: 0,
      modelName: "beating",
      threads: 1,
      parallel: 1,
      contextSize: 4096,
      heartbeat: {
        url: `http://127.0.0.1:${stub.port}/inventory/heartbeat`,
        nodeToken: "node-secret",
        intervalMs: 150,
        providerInstanceId: "instance-7",
        provider: "local",
      },
    });
    const worker = await startWorker(env);
    await within(twoBeats.promise, 15_000, "two heartbeats");
    expect(beats.length).toBeGreaterThanOrEqual(2);
    expect(beats[0]?.auth).toBe("Bearer node-secret");
    expect(beats[0]?.body).toEqual({
      provider: "local",
      provider_instance_id: "instance-7",
      gpu_allocated: 0,
      vcpu_allocated: 1,
      ram_gb_allocated: 1,
      health_score: 100,
      state: "READY",
      expose_url: `http://127.0.0.1:${worker.port}`,
    });

    const stream = await worker.client.chat.completions.create({
      model: "beating",
      messages: user("go on"),
      max_tokens: 4000,
      stream: true,
    });
    const answering = Promise.withResolvers<void>();
    const reading = (async () => {
      for await (const _ of stream) {
        answering.resolve(); // then drain until the worker ends it
      }
    })().catch((e: unknown) => e);
    await within(answering.promise, 15_000, "the answer's first chunk");
    const stopping = performance.now();
    worker.proc.kill("SIGTERM");
    expect(await worker.proc.exited).toBe(0);
    expect(performance.now() - stopping).toBeLessThan(3500);
    // The client is told, not left hanging: an error event (the SDK throws it) or the end of the stream.
    await reading;
  }, 60_000);
});

test("localCommand runs this Bun on the worker entry", () => {
  const { cmd, env } = localCommand({ modelPath: "/m.gguf", port: 9000, modelName: "m" });
  expect(cmd).toEqual([process.execPath, workerEntry]);
  expect(workerEntry).toEndWith("adapters/engines/llama.cpp/worker.ts");
  expect(env).toEqual({ MODEL_PATH: "/m.gguf", PORT: "9000", MODEL_NAME: "m" });
});

describe("embeddings", () => {
  test("the openai SDK gets one vector per input, the same text the same vector, usage counted", async () => {
    const res = await main.client.embeddings.create({
      model: "tiny-test",
      input: ["parental leave policy", "where to return a laptop", "parental leave policy"],
    });
    expect(res.object).toBe("list");
    expect(res.model).toBe("tiny-test");
    expect(res.data.map((d) => d.index)).toEqual([0, 1, 2]);
    const [a, b, c] = res.data.map((d) => d.embedding);
    expect(a?.length).toBeGreaterThan(8);
    expect(a).toEqual(c as number[]);
    expect(a).not.toEqual(b as number[]);
    expect(res.usage.prompt_tokens).toBeGreaterThan(3);
    expect(res.usage.total_tokens).toBe(res.usage.prompt_tokens);
    // The SDK asks for base64 by default when it can decode it; both encodings carry the same numbers.
    const single = await main.client.embeddings.create({
      model: "tiny-test",
      input: "parental leave policy",
    });
    expect(single.data[0]?.embedding.map((x) => Math.fround(x))).toEqual(
      (a as number[]).map((x) => Math.fround(x)),
    );
  });

  test("a text longer than the context is embedded from its beginning, not refused", async () => {
    const long = "parental leave policy ".repeat(2000);
    const res = await main.client.embeddings.create({
      model: "tiny-test",
      input: [long, `${long} and more`],
    });
    expect(res.data).toHaveLength(2);
    expect(res.data[0]?.embedding).toEqual(res.data[1]?.embedding as number[]);
    // Each text holds 6,000 words (more tokens than that): counted as cut, not whole.
    expect(res.usage.prompt_tokens).toBeLessThan(2 * 6000);
  });

  test("bad input is a 400 in OpenAI's shape", async () => {
    for (const body of [
      { input: [] },
      { input: [""] },
      { input: 42 },
      { input: "x", encoding_format: "hex" },
    ]) {
      const res = await fetch(`${main.base}/v1/embeddings`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ model: "tiny-test", ...body }),
      });
      expect(res.status).toBe(400);
      expect((await jsonBody<OpenAIError>(res)).error.type).toBe("invalid_request_error");
    }
  });
});
