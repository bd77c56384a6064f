// Anthropic's Messages API on the inference gateway, with Anthropic's own SDK against a real llama.cpp
// worker of the tiny random-weight model. Every answer, stream event, count and error body is checked
// against the JSON Schema derived from the SDK's published types (anthropic/anthropic-api.schema.json,
// made by scripts/anthropic-api-schema.ts): Anthropic's API shapes, pinned, no network at test time.
// Random weights say nothing sensible: the tests check what the translation and a grammar guarantee.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import Anthropic from "@anthropic-ai/sdk";
import type { MessageParam, Tool } from "@anthropic-ai/sdk/resources/messages/messages";
import { Value } from "@sinclair/typebox/value";
import Ajv from "ajv";
import { createParser } from "eventsource-parser";
import { ErrorResponse, Message, type MessageStreamEvent } from "#contracts/anthropic/messages.ts";
import { weather } from "../engines/worker-support.ts";
import pinned from "./anthropic/anthropic-api.schema.json" with { type: "json" };
import { startTinyDeployment, type TinyDeployment } from "./tiny-deployment.ts";

let tiny: TinyDeployment;
let gateway: string;

beforeAll(async () => {
  tiny = await startTinyDeployment("tiny-claude");
  gateway = tiny.baseUrl.replace(/\/v1$/, "");
}, 120_000);
afterAll(() => tiny.close(), 60_000);

const ajv = new Ajv({ strict: false, allErrors: true });
ajv.addSchema(pinned, "anthropic");
type Shape =
  | "PinnedMessage"
  | "PinnedRawMessageStreamEvent"
  | "PinnedMessageTokensCount"
  | "PinnedErrorResponse";
/** The schema errors of `value` as the named published type; [] when it conforms. */
function conformance(shape: Shape, value: unknown) {
  const validate = ajv.getSchema(`anthropic#/definitions/${shape}`);
  if (!validate) throw new Error(`no ${shape} in the pinned schema`);
  return validate(value) ? [] : validate.errors;
}

const client = (apiKey = tiny.apiKey) => new Anthropic({ apiKey, baseURL: gateway, maxRetries: 0 });
const weatherTool: Tool = {
  name: "get_weather",
  description: "The weather in a city",
  input_schema: weather as unknown as Tool.InputSchema,
};

/** The message_delta event of a stream: its stop reason and usage. */
function messageDelta(events: { data: MessageStreamEvent }[]) {
  for (const { data } of events) if (data.type === "message_delta") return data;
  throw new Error("no message_delta event");
}

/** A body that must be a Message (ours, so its fields are typed); the pinned schema checks it too. */
function messageIn(body: unknown) {
  if (!Value.Check(Message, body)) throw new Error(`not a message: ${JSON.stringify(body)}`);
  return body;
}

/** What a call that must fail threw. */
async function errorOf(call: PromiseLike<unknown>): Promise<unknown> {
  try {
    await call;
  } catch (error) {
    return error;
  }
  throw new Error("the call succeeded");
}

/** POSTs a raw body and returns the status and the parsed JSON answer. */
async function post(
  path: string,
  body: unknown,
  headers: Record<string, string> = { "x-api-key": tiny.apiKey },
) {
  const response = await fetch(`${gateway}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", "anthropic-version": "2023-06-01", ...headers },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as unknown, headers: response.headers };
}

/** The stream's events as sent: `event:` name and parsed data, each. */
async function rawEvents(body: unknown) {
  const response = await fetch(`${gateway}/v1/messages`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "x-api-key": tiny.apiKey,
      "anthropic-version": "2023-06-01",
    },
    body: JSON.stringify({ ...(body as object), stream: true }),
  });
  expect(response.headers.get("content-type")).toContain("text/event-stream");
  const events: { event: string | undefined; data: MessageStreamEvent }[] = [];
  const parser = createParser({ onEvent: (e) => events.push({ event: e.event, data: JSON.parse(e.data) }) });
  parser.feed(await response.text());
  return events;
}

describe("the Anthropic SDK", () => {
  test("messages.create: text blocks, a stop reason, usage; the answer is Anthropic's Message", async () => {
    const message = await client().messages.create({
      model: tiny.model,
      max_tokens: 8,
      system: [{ type: "text", text: "You are terse." }],
      messages: [{ role: "user", content: "Say hello." }],
      metadata: { user_id: "user-42" },
    });
    expect(message.type).toBe("message");
    expect(message.role).toBe("assistant");
    expect(message.model).toBe(tiny.model);
    expect(message.id).toMatch(/^msg_/);
    expect(["end_turn", "max_tokens"]).toContain(message.stop_reason ?? "");
    for (const block of message.content) expect(block.type).toBe("text");
    expect(message.usage.input_tokens).toBeGreaterThan(0);
    expect(message.usage.output_tokens).toBeLessThanOrEqual(8);
    expect(message.usage.cache_read_input_tokens).toBeGreaterThanOrEqual(0);
    expect(message.usage.cache_creation_input_tokens).toBe(0);
    expect(conformance("PinnedMessage", message)).toEqual([]);
  });

  test("output_config.format: structured output, the text is JSON valid against the schema", async () => {
    const verdict = {
      type: "object",
      properties: { answer: { type: "string", enum: ["yes", "no"] }, sure: { type: "boolean" } },
      required: ["answer", "sure"],
      additionalProperties: false,
    };
    const message = await client().messages.create({
      model: tiny.model,
      max_tokens: 60,
      output_config: { format: { type: "json_schema", schema: verdict } },
      messages: [{ role: "user", content: "Is the sky blue?" }],
    });
    const text = message.content.map((block) => (block.type === "text" ? block.text : "")).join("");
    expect(new Ajv().compile(verdict)(JSON.parse(text))).toBe(true);
  });

  test("max_tokens reached is stop_reason max_tokens", async () => {
    const message = await client().messages.create({
      model: tiny.model,
      max_tokens: 1,
      messages: [{ role: "user", content: "Count to ten." }],
    });
    // One token: the model either ended at once or was cut.
    expect(["end_turn", "max_tokens"]).toContain(message.stop_reason ?? "");
    if (message.stop_reason === "max_tokens") expect(message.usage.output_tokens).toBe(1);
  });

  test("messages.stream: the SDK assembles the final message from the events", async () => {
    const stream = client().messages.stream({
      model: tiny.model,
      max_tokens: 8,
      messages: [{ role: "user", content: "Tell a story." }],
    });
    let streamed = "";
    stream.on("text", (text) => {
      streamed += text;
    });
    const final = await stream.finalMessage();
    const text = final.content.map((block) => (block.type === "text" ? block.text : "")).join("");
    expect(text).toBe(streamed);
    expect(final.usage.output_tokens).toBeGreaterThan(0);
    expect(final.usage.input_tokens).toBeGreaterThan(0);
    expect(["end_turn", "max_tokens"]).toContain(final.stop_reason ?? "");
  });

  test("a three-turn tool loop: tool_use, then tool_result, then the answer", async () => {
    const messages: MessageParam[] = [{ role: "user", content: "What is the weather in Paris?" }];
    const first = await client().messages.create({
      model: tiny.model,
      max_tokens: 100,
      tools: [weatherTool],
      tool_choice: { type: "tool", name: "get_weather" },
      messages,
    });
    expect(conformance("PinnedMessage", first)).toEqual([]);
    expect(first.stop_reason).toBe("tool_use");
    const call = first.content.find((block) => block.type === "tool_use");
    if (call?.type !== "tool_use") throw new Error(`no tool_use block: ${JSON.stringify(first.content)}`);
    expect(call.name).toBe("get_weather");
    expect(call.id.length).toBeGreaterThan(0);
    // The grammar holds the arguments to the tool's schema.
    expect(new Ajv().compile(weather)(call.input)).toBe(true);

    messages.push({ role: "assistant", content: first.content });
    messages.push({
      role: "user",
      content: [
        { type: "tool_result", tool_use_id: call.id, content: [{ type: "text", text: "18 degrees, sunny" }] },
        { type: "text", text: "Thanks; answer in one sentence." },
      ],
    });
    const second = await client().messages.create({
      model: tiny.model,
      max_tokens: 8,
      tools: [weatherTool],
      tool_choice: { type: "none" },
      messages,
    });
    expect(conformance("PinnedMessage", second)).toEqual([]);
    expect(["end_turn", "max_tokens"]).toContain(second.stop_reason ?? "");
    expect(second.content.every((block) => block.type === "text")).toBe(true);

    // `any` forces some tool call, as OpenAI's "required".
    const third = await client().messages.create({
      model: tiny.model,
      max_tokens: 100,
      tools: [weatherTool],
      tool_choice: { type: "any" },
      messages: [
        ...messages,
        { role: "assistant", content: second.content },
        { role: "user", content: "And Rome?" },
      ],
    });
    expect(third.stop_reason).toBe("tool_use");
    expect(third.content.some((block) => block.type === "tool_use")).toBe(true);
  });

  test("countTokens counts with the deployment's tokenizer: more text, more tokens; tools count", async () => {
    const count = (messages: MessageParam[], tools?: Tool[]) =>
      client().messages.countTokens({ model: tiny.model, messages, ...(tools ? { tools } : {}) });
    const short = await count([{ role: "user", content: "Hi" }]);
    const long = await count([{ role: "user", content: "Hi there, how are you doing on this fine day?" }]);
    const withTools = await count([{ role: "user", content: "Hi" }], [weatherTool]);
    expect(conformance("PinnedMessageTokensCount", short)).toEqual([]);
    expect(short.input_tokens).toBeGreaterThan(0);
    expect(long.input_tokens).toBeGreaterThan(short.input_tokens);
    expect(withTools.input_tokens).toBeGreaterThan(short.input_tokens);
    // The same prompt, answered: the count is the usage's input_tokens.
    const answered = await client().messages.create({
      model: tiny.model,
      max_tokens: 1,
      messages: [{ role: "user", content: "Hi" }],
    });
    expect(answered.usage.input_tokens).toBe(short.input_tokens);
  });

  test("a wrong key is AuthenticationError, an unknown model NotFoundError, a bad body BadRequestError", async () => {
    const ask = (c: Anthropic, model = tiny.model, max_tokens = 4) =>
      errorOf(c.messages.create({ model, max_tokens, messages: [{ role: "user", content: "Hi" }] }));
    const wrongKey = await ask(client("sk-wrong-key-000000000000000000000000000000000000"));
    expect(wrongKey).toBeInstanceOf(Anthropic.AuthenticationError);
    const unknown = await ask(client(), "no-such-model");
    expect(unknown).toBeInstanceOf(Anthropic.NotFoundError);
    expect((unknown as InstanceType<typeof Anthropic.NotFoundError>).type).toBe("not_found_error");
    const bad = await ask(client(), tiny.model, 0);
    expect(bad).toBeInstanceOf(Anthropic.BadRequestError);
    expect((bad as Error).message).toContain("max_tokens");
    const count = await errorOf(client().messages.countTokens({ model: "no-such-model", messages: [] }));
    expect(count).toBeInstanceOf(Anthropic.BadRequestError);
  });
});

describe("the wire, against Anthropic's published shapes", () => {
  test("a streamed answer: every event conforms, in Anthropic's order", async () => {
    const events = await rawEvents({
      model: tiny.model,
      max_tokens: 8,
      messages: [{ role: "user", content: "Hello" }],
    });
    const types = events.map((e) => e.data.type);
    expect(types[0]).toBe("message_start");
    expect(types).toContain("ping");
    expect(types.slice(-2)).toEqual(["message_delta", "message_stop"]);
    for (const { event, data } of events) {
      expect(event).toBe(data.type);
      if (data.type === "ping") continue; // not among the SDK's event types: it skips pings
      expect(conformance("PinnedRawMessageStreamEvent", data)).toEqual([]);
    }
    const delta = messageDelta(events);
    expect(["end_turn", "max_tokens"]).toContain(delta.delta.stop_reason ?? "");
    expect(delta.usage.output_tokens).toBeGreaterThan(0);
    expect(delta.usage.input_tokens).toBeGreaterThan(0);
  });

  test("a streamed tool call: tool_use block start, input_json_delta pieces that make the input", async () => {
    const events = await rawEvents({
      model: tiny.model,
      max_tokens: 100,
      tools: [weatherTool],
      tool_choice: { type: "tool", name: "get_weather" },
      messages: [{ role: "user", content: "Weather in Oslo?" }],
    });
    for (const { data } of events) {
      if (data.type !== "ping") expect(conformance("PinnedRawMessageStreamEvent", data)).toEqual([]);
    }
    const starts = events.map(({ data }) =>
      data.type === "content_block_start" && data.content_block.type === "tool_use" ? data.index : -1,
    );
    const index = starts.find((i) => i >= 0) ?? -1;
    expect(index).toBeGreaterThanOrEqual(0);
    const json = events
      .map(({ data }) =>
        data.type === "content_block_delta" && data.index === index && data.delta.type === "input_json_delta"
          ? data.delta.partial_json
          : "",
      )
      .join("");
    expect(new Ajv().compile(weather)(JSON.parse(json))).toBe(true);
    expect(events.some((e) => e.data.type === "content_block_stop" && e.data.index === index)).toBe(true);
    expect(messageDelta(events).delta.stop_reason).toBe("tool_use");
  });

  test("a tool result turn, with the key as a bearer token and anthropic-beta set", async () => {
    const answer = await post(
      "/v1/messages",
      {
        model: tiny.model,
        max_tokens: 6,
        system: "Use the tools.",
        // Sampling parameters the SDK no longer types, which older clients send.
        temperature: 0.5,
        top_p: 0.9,
        top_k: 20,
        metadata: { user_id: "user-42" },
        tools: [weatherTool],
        tool_choice: { type: "auto" },
        messages: [
          { role: "user", content: "Weather in Lima?" },
          {
            role: "assistant",
            content: [
              {
                type: "tool_use",
                id: "toolu_1",
                name: "get_weather",
                input: { city: "Lima", unit: "celsius" },
              },
            ],
          },
          {
            role: "user",
            content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "22", is_error: false }],
          },
        ],
      },
      { authorization: `Bearer ${tiny.apiKey}`, "anthropic-beta": "tools-2024-04-04" },
    );
    expect(answer.status).toBe(200);
    expect(conformance("PinnedMessage", answer.body)).toEqual([]);
  });

  test("errors: Anthropic's shape and statuses", async () => {
    const hello = { model: tiny.model, max_tokens: 4, messages: [{ role: "user", content: "Hi" }] };
    const cases: {
      body: unknown;
      headers?: Record<string, string>;
      status: number;
      type: string;
      says?: RegExp;
    }[] = [
      { body: hello, headers: {}, status: 401, type: "authentication_error" },
      { body: hello, headers: { "x-api-key": "sk-nope" }, status: 401, type: "authentication_error" },
      { body: { ...hello, model: "missing" }, status: 404, type: "not_found_error" },
      {
        body: { model: tiny.model, messages: hello.messages },
        status: 400,
        type: "invalid_request_error",
        says: /max_tokens/,
      },
      {
        body: {
          ...hello,
          messages: [
            {
              role: "user",
              content: [{ type: "image", source: { type: "base64", media_type: "image/png", data: "AAAA" } }],
            },
          ],
        },
        status: 400,
        type: "invalid_request_error",
        says: /image blocks are not supported/,
      },
      {
        body: {
          ...hello,
          messages: [
            {
              role: "user",
              content: [{ type: "document", source: { type: "text", media_type: "text/plain", data: "x" } }],
            },
          ],
        },
        status: 400,
        type: "invalid_request_error",
        says: /document blocks are not supported/,
      },
      {
        body: { ...hello, tools: [weatherTool], tool_choice: { type: "tool", name: "nope" } },
        status: 400,
        type: "invalid_request_error",
        says: /tool_choice\.name/,
      },
      {
        body: { ...hello, tools: [{ type: "web_search_20250305", name: "web_search" }] },
        status: 400,
        type: "invalid_request_error",
        says: /server tools are not supported/,
      },
    ];
    for (const c of cases) {
      const answer = await post("/v1/messages", c.body, c.headers);
      expect({ status: answer.status, body: answer.body }).toMatchObject({
        status: c.status,
        body: { type: "error", error: { type: c.type } },
      });
      expect(conformance("PinnedErrorResponse", answer.body)).toEqual([]);
      if (!Value.Check(ErrorResponse, answer.body)) throw new Error(JSON.stringify(answer.body));
      if (c.says) expect(answer.body.error.message).toMatch(c.says);
      expect(answer.body.request_id).toBe(answer.headers.get("x-request-id") ?? "");
    }
    const count = await post("/v1/messages/count_tokens", { model: "missing", messages: hello.messages });
    expect(count.status).toBe(404);
    expect(conformance("PinnedErrorResponse", count.body)).toEqual([]);
  });

  test("a prompt longer than the context is Anthropic's 'prompt is too long: N tokens > M maximum'", async () => {
    // The words Claude Code reads to know by how much a session must shrink.
    const answer = await post("/v1/messages", {
      model: tiny.model,
      max_tokens: 4,
      messages: [{ role: "user", content: "word ".repeat(3000) }],
    });
    expect(answer.status).toBe(400);
    if (!Value.Check(ErrorResponse, answer.body)) throw new Error(JSON.stringify(answer.body));
    expect(conformance("PinnedErrorResponse", answer.body)).toEqual([]);
    expect(answer.body.error.type).toBe("invalid_request_error");
    const [, actual, limit] =
      /^prompt is too long: (\d+) tokens > (\d+) maximum$/.exec(answer.body.error.message) ?? [];
    expect(Number(limit)).toBe(2048);
    expect(Number(actual)).toBeGreaterThan(2048);
  });

  test("a stop sequence that ends the text is stop_reason stop_sequence, named", async () => {
    // The sequences are the commonest letters of the tiny model's gibberish; it may still end its turn
    // first (an end-of-generation token is about one in 90), so it asks again until a sequence stops it.
    const sequences = ["e", "a", "o", "i"];
    for (const stream of [false, true]) {
      let stopped: { stop_reason: string | null; stop_sequence: string | null } | undefined;
      for (let attempt = 0; attempt < 8 && stopped?.stop_reason !== "stop_sequence"; attempt++) {
        // Another prompt each time: the same one may be answered the same way (a kept sequence, a seed).
        const body = {
          model: tiny.model,
          max_tokens: 200,
          stop_sequences: sequences,
          temperature: 1,
          messages: [{ role: "user", content: `Write a long sentence, number ${attempt}.` }],
        };
        if (stream) stopped = messageDelta(await rawEvents(body)).delta;
        else {
          const answer = await post("/v1/messages", body);
          expect(conformance("PinnedMessage", answer.body)).toEqual([]);
          const message = messageIn(answer.body);
          // A turn that ended by itself wrote none of the sequences.
          const text = message.content.map((block) => (block.type === "text" ? block.text : "")).join("");
          if (message.stop_reason === "end_turn") expect(sequences.some((q) => text.includes(q))).toBe(false);
          stopped = message;
        }
      }
      expect(stopped?.stop_reason).toBe("stop_sequence");
      expect(sequences).toContain(stopped?.stop_sequence ?? "");
    }
  });
});
