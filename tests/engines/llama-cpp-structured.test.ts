// Structured outputs, logprobs and logit_bias on the llama.cpp worker, with the official openai SDK, on the tiny
// random-weight model. JSON answers are checked by ajv, independently of the grammar that produced them.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import Ajv from "ajv";
import { readGgufFileInfo } from "node-llama-cpp";
import OpenAI from "openai";
import { refusal, startTinyWorker, type TinyWorker, type Worker } from "./worker-support.ts";

let tiny: TinyWorker;
let worker: Worker;
/** The tiny model's vocabulary: token id → piece (`▁the`, `<0x41>`, ...). */
let vocabulary: string[];

const user = (content: string) => [{ role: "user" as const, content }];
const ajv = new Ajv({ strict: true });

/** Enums, nested objects, arrays, required fields, $defs; free strings bounded, as a caller of a small model would. */
const order = {
  type: "object",
  properties: {
    status: { type: "string", enum: ["open", "paid", "shipped"] },
    express: { type: "boolean" },
    quantity: { type: "integer" },
    price: { type: "number" },
    customer: {
      type: "object",
      properties: {
        name: { type: "string", minLength: 1, maxLength: 10 },
        tier: { $ref: "#/$defs/tier" },
      },
      required: ["name", "tier"],
      additionalProperties: false,
    },
    tags: { type: "array", items: { type: "string", enum: ["gift", "fragile", "bulk"] }, maxItems: 3 },
    lines: {
      type: "array",
      items: {
        type: "object",
        properties: { sku: { type: "string", maxLength: 6 }, count: { type: "integer" } },
        required: ["sku", "count"],
        additionalProperties: false,
      },
      minItems: 1,
      maxItems: 2,
    },
    note: { anyOf: [{ type: "string", maxLength: 8 }, { type: "null" }] },
  },
  required: ["status", "express", "quantity", "price", "customer", "tags", "lines", "note"],
  additionalProperties: false,
  $defs: { tier: { type: "string", enum: ["gold", "silver"] } },
} as const;
const validateOrder = ajv.compile(order);
const orderFormat = {
  type: "json_schema",
  json_schema: { name: "order", schema: order, strict: true },
} as const;

beforeAll(async () => {
  tiny = await startTinyWorker("tiny-json");
  worker = tiny.worker;
  const info = await readGgufFileInfo(tiny.modelPath);
  vocabulary = (info.metadata as unknown as { tokenizer: { ggml: { tokens: string[] } } }).tokenizer.ggml
    .tokens;
});

afterAll(() => tiny.close());

describe("response_format", () => {
  test("json_schema: twelve seeds, twelve answers valid against the schema", async () => {
    for (let seed = 1; seed <= 12; seed++) {
      const res = await worker.client.chat.completions.create({
        model: "tiny-json",
        messages: user("Make up an order."),
        response_format: orderFormat,
        max_tokens: 600,
        seed,
      });
      expect(res.choices[0]?.finish_reason).toBe("stop");
      const value = JSON.parse(res.choices[0]?.message.content ?? "");
      expect(validateOrder(value) ? [] : validateOrder.errors).toEqual([]);
    }
  });

  test("json_schema streamed: the pieces joined are valid JSON for the schema", async () => {
    for (const seed of [21, 22]) {
      const stream = await worker.client.chat.completions.create({
        model: "tiny-json",
        messages: user("Another order."),
        response_format: orderFormat,
        max_tokens: 600,
        seed,
        stream: true,
      });
      let text = "";
      let finish: string | null = null;
      for await (const chunk of stream) {
        text += chunk.choices[0]?.delta.content ?? "";
        finish = chunk.choices[0]?.finish_reason ?? finish;
      }
      expect(finish).toBe("stop");
      const value = JSON.parse(text);
      expect(validateOrder(value) ? [] : validateOrder.errors).toEqual([]);
    }
  });

  test("strings stay valid UTF-8 under a grammar, so maxLength holds on every seed", async () => {
    // Random weights pick byte tokens freely; llama.cpp's grammar alone let F5 or F4 90.. through, which
    // decode to several U+FFFD and broke maxLength on about one seed in three.
    const schema = {
      type: "object",
      properties: { a: { type: "string", maxLength: 12 } },
      required: ["a"],
      additionalProperties: false,
    } as const;
    const validate = ajv.compile(schema);
    for (let seed = 1; seed <= 12; seed++) {
      const res = await worker.client.chat.completions.create({
        model: "tiny-json",
        messages: user("What is the weather in Paris?"),
        response_format: { type: "json_schema", json_schema: { name: "a", schema } },
        max_tokens: 300,
        seed,
      });
      const content = res.choices[0]?.message.content ?? "";
      expect(content).not.toContain("\uFFFD");
      expect(validate(JSON.parse(content)) ? [] : validate.errors).toEqual([]);
    }
  });

  test("json_object: an object that parses", async () => {
    // A random model may nest deeper than max_tokens allows (then the answer is cut, finish_reason
    // "length", as OpenAI's); every answer the grammar let finish is one JSON object.
    let finished = 0;
    for (let seed = 1; seed <= 8 && finished < 3; seed++) {
      const res = await worker.client.chat.completions.create({
        model: "tiny-json",
        messages: user("Answer in JSON."),
        response_format: { type: "json_object" },
        max_tokens: 800,
        seed,
      });
      if (res.choices[0]?.finish_reason !== "stop") continue;
      finished++;
      const value = JSON.parse(res.choices[0]?.message.content ?? "");
      expect(typeof value).toBe("object");
      expect(Array.isArray(value)).toBe(false);
    }
    expect(finished).toBe(3);
  });

  test("an invalid schema is refused with ajv's reason; so is an unknown format type", async () => {
    const refused = (response_format: unknown) => refusal(worker, { response_format });
    const schema = (s: unknown) => ({ type: "json_schema", json_schema: { name: "x", schema: s } });
    const bad = await refused(
      schema({ type: "object", properties: { id: { type: "string", minLength: "two" } } }),
    );
    expect(bad.param).toBe("response_format.json_schema.schema");
    expect(bad.type).toBe("invalid_request_error");
    expect(bad.message).toContain("/properties/id/minLength must be integer");
    const xml = await refused({ type: "xml" });
    expect(xml.param).toBe("response_format.type");
  });

  test("what the grammar cannot enforce is checked after: a failing answer is never returned as valid", async () => {
    // The grammar writes 1 to 9; `not` refuses every one of them, so each attempt fails the check.
    const impossible = { type: "integer", minimum: 1, maximum: 9, not: { minimum: 1 } };
    const format = { type: "json_schema", json_schema: { name: "n", schema: impossible } } as const;
    const err = await worker.client.chat.completions
      .create({ model: "tiny-json", messages: user("A number?"), response_format: format, seed: 3 })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.InternalServerError);
    const failed = err as InstanceType<typeof OpenAI.InternalServerError>;
    expect(failed.code).toBe("invalid_structured_output");
    expect(failed.message).toContain("3 attempts");
    expect(failed.message).toContain("must NOT be valid");
    // Streamed, the text is already out: the stream ends with the error instead of a finish_reason.
    const res = await fetch(`${worker.base}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ messages: user("A number?"), response_format: format, seed: 3, stream: true }),
    });
    const events = (await res.text()).split("\n\n").filter(Boolean);
    expect(events.at(-1)).toContain('"code":"invalid_structured_output"');
    expect(events.some((e) => e.includes('"finish_reason":"stop"'))).toBe(false);
    expect(events.some((e) => e.includes("[DONE]"))).toBe(false);
  });

  test("an answer the check refuses once is generated again under another seed", async () => {
    // The grammar writes 0 to 9; multipleOf 3 keeps four of them. Each 200 answer passed the check.
    const schema = { type: "integer", minimum: 0, maximum: 9, multipleOf: 3 };
    const format = { type: "json_schema", json_schema: { name: "n", schema } } as const;
    let answered = 0;
    for (let seed = 1; seed <= 6; seed++) {
      const res = await worker.client.chat.completions
        .create({ model: "tiny-json", messages: user("A number?"), response_format: format, seed })
        .catch((e: unknown) => e);
      if (res instanceof OpenAI.InternalServerError) continue;
      const value = JSON.parse((res as OpenAI.ChatCompletion).choices[0]?.message.content ?? "");
      expect(value % 3).toBe(0);
      answered++;
    }
    expect(answered).toBeGreaterThan(2);
  });
});

describe("logprobs", () => {
  const bytesOf = (tokens: { bytes: number[] | null }[]) =>
    Buffer.from(tokens.flatMap((t) => t.bytes ?? [])).toString("utf8");

  test("one entry per token, finite, with top_logprobs alternatives sorted, the bytes spelling the answer", async () => {
    const res = await worker.client.chat.completions.create({
      model: "tiny-json",
      messages: user("hello"),
      max_tokens: 12,
      logprobs: true,
      top_logprobs: 5,
      seed: 4,
    });
    const content = res.choices[0]?.logprobs?.content ?? [];
    // A character split over byte tokens is held back until whole: at most the last few tokens are not text yet.
    expect(content.length).toBeGreaterThan(8);
    expect(content.length).toBeLessThanOrEqual(res.usage?.completion_tokens ?? 0);
    expect(bytesOf(content)).toBe(res.choices[0]?.message.content ?? "");
    for (const token of content) {
      expect(Number.isFinite(token.logprob)).toBe(true);
      expect(token.logprob).toBeLessThanOrEqual(0);
      expect(token.top_logprobs).toHaveLength(5);
      const tops = token.top_logprobs.map((t) => t.logprob);
      expect(tops).toEqual([...tops].sort((a, b) => b - a));
      expect(token.logprob).toBeLessThanOrEqual(tops[0] ?? 0);
      for (const alt of token.top_logprobs) expect(Number.isFinite(alt.logprob)).toBe(true);
    }
    // Without logprobs there are none.
    const plain = await worker.client.chat.completions.create({
      model: "tiny-json",
      messages: user("hi"),
      max_tokens: 3,
    });
    expect(plain.choices[0]?.logprobs).toBeNull();
  });

  test("streamed: each content chunk carries the logprobs of its own text; top_logprobs 0 gives none", async () => {
    const stream = await worker.client.chat.completions.create({
      model: "tiny-json",
      messages: user("hello"),
      max_tokens: 16,
      logprobs: true,
      top_logprobs: 0,
      seed: 5,
      stream: true,
    });
    let chunks = 0;
    for await (const chunk of stream) {
      const choice = chunk.choices[0];
      if (!choice?.delta.content) continue;
      chunks++;
      const tokens = choice.logprobs?.content ?? [];
      expect(bytesOf(tokens)).toBe(choice.delta.content);
      for (const token of tokens) expect(token.top_logprobs).toEqual([]);
    }
    expect(chunks).toBeGreaterThan(5);
  });

  test("top_logprobs without logprobs, and more than 20, are refused", async () => {
    for (const body of [{ top_logprobs: 2 }, { logprobs: true, top_logprobs: 21 }]) {
      expect((await refusal(worker, body)).param).toBe("top_logprobs");
    }
  });
});

describe("logit_bias", () => {
  test("-100 bans: no token holding the letter e ever comes out", async () => {
    const banned = vocabulary.flatMap((piece, id) => (piece.includes("e") || piece === "<0x65>" ? [id] : []));
    expect(banned.length).toBeGreaterThan(3);
    const logit_bias = Object.fromEntries(banned.map((id) => [String(id), -100]));
    const free = await worker.client.chat.completions.create({
      model: "tiny-json",
      messages: user("the the the"),
      max_tokens: 200,
      seed: 2,
    });
    expect(free.choices[0]?.message.content).toContain("e");
    for (const seed of [1, 2, 3]) {
      const res = await worker.client.chat.completions.create({
        model: "tiny-json",
        messages: user("the the the"),
        max_tokens: 200,
        seed,
        logit_bias,
      });
      expect(res.choices[0]?.message.content?.length).toBeGreaterThan(50);
      expect(res.choices[0]?.message.content).not.toContain("e");
    }
  });

  test("+100 makes one token the answer; an id outside the vocabulary is refused", async () => {
    const z = vocabulary.indexOf("<0x5A>");
    const res = await worker.client.chat.completions.create({
      model: "tiny-json",
      messages: user("hello"),
      max_tokens: 10,
      logit_bias: { [String(z)]: 100 },
    });
    expect(res.choices[0]?.message.content).toBe("Z".repeat(10));
    expect((await refusal(worker, { logit_bias: { "99999": 5 } })).param).toBe("logit_bias");
  });
});

describe("what this engine cannot do is refused, never ignored", () => {
  test("n > 1, audio output, an image part", async () => {
    const n = await refusal(worker, { n: 2 });
    expect(n.param).toBe("n");
    expect(n.message).toContain("n must be 1");
    expect(
      (await refusal(worker, { modalities: ["text", "audio"], audio: { voice: "alloy", format: "mp3" } }))
        .param,
    ).toBe("audio");
    const image = await refusal(worker, {
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "What is in this picture?" },
            { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=" } },
          ],
        },
      ],
    });
    expect(image.param).toBe("messages[0].content[1]");
    expect(image.message).toContain("image_url");
  });
});
