// The Anthropic Messages wire adapter (adapters/upstream/wire/anthropic.ts) against a fake of Anthropic's
// API (tests/fakes/anthropic) that checks the key, the model and every request and answer against the
// SDK's published types: OpenAI chat and completions in, Messages out, and the answers, streams, stop
// reasons, usage and errors back in OpenAI's shapes, checked against OpenAI's published OpenAPI document
// and read by the real `openai` client.
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import OpenAI from "openai";
import { anthropicWire, defaultMaxTokens } from "#adapters/upstream/wire/anthropic.ts";
import { WireRefusal } from "#adapters/upstream/wire/openai-side.ts";
import type { UpstreamTarget } from "#adapters/upstream/wire/wire.ts";
import type { OpenAIError } from "#contracts/openai/error.ts";
import { weather } from "../engines/worker-support.ts";
import { type FakeAnthropic, startFakeAnthropic } from "../fakes/anthropic/server.ts";
import { jsonBody } from "../support/json.ts";
import { type OpenAiSpec, openAiSpec } from "../support/openai-spec.ts";
import { type AdapterServer, exchange, serveAdapter, streamed } from "./wire-support.ts";

let fake: FakeAnthropic;
let target: UpstreamTarget;
let spec: OpenAiSpec;
let server: AdapterServer;

beforeAll(async () => {
  fake = startFakeAnthropic();
  target = { endpoint: fake.baseUrl, model: fake.model, apiKey: fake.apiKey };
  server = serveAdapter(anthropicWire, target);
  spec = await openAiSpec();
  spec.prepare(["POST /chat/completions", "POST /completions"]);
}, 60_000);
afterAll(() => {
  server.stop();
  fake.stop();
});
beforeEach(() => {
  fake.requests.length = 0;
  fake.cacheRead = 0;
  fake.problems.length = 0;
});

const hello = [{ role: "user", content: "Hello there" }];
const tool = {
  type: "function",
  function: { name: "get_weather", description: "Weather", parameters: weather },
};
const chat = (body: object, stream = false) =>
  exchange(
    anthropicWire,
    target,
    "/v1/chat/completions",
    { model: "support-bot", messages: hello, ...body },
    stream,
  );
const lastRequest = () => fake.requests.at(-1);

/** The fake found nothing in the requests or answers outside Anthropic's published types. */
function publishedShapesOnly() {
  expect(fake.problems).toEqual([]);
}

describe("the request", () => {
  test("goes to /v1/messages with the key, the version and the upstream model; max_tokens defaults", async () => {
    const res = await chat({});
    expect(res.status).toBe(200);
    const received = lastRequest();
    expect(received?.headers["x-api-key"]).toBe(fake.apiKey);
    expect(received?.headers["anthropic-version"]).toBe("2023-06-01");
    expect(received?.body).toMatchObject({ model: fake.model, max_tokens: defaultMaxTokens });
    publishedShapesOnly();
  });

  test("an endpoint given with /v1 or a trailing slash reaches the same URL", () => {
    for (const endpoint of [`${fake.baseUrl}/v1`, `${fake.baseUrl}/`, `${fake.baseUrl}/v1/`]) {
      const request = anthropicWire.request(
        { ...target, endpoint },
        "/v1/chat/completions",
        JSON.stringify({ messages: hello }),
        false,
      );
      expect(request.url).toBe(`${fake.baseUrl}/v1/messages`);
    }
  });

  test("system turns, tool calls and tool results become system, tool_use and tool_result blocks", async () => {
    const res = await chat({
      messages: [
        { role: "system", content: "Be brief." },
        { role: "developer", content: "Use metric units." },
        { role: "user", content: "Weather in Paris?" },
        {
          role: "assistant",
          content: null,
          tool_calls: [
            {
              id: "call_1",
              type: "function",
              function: { name: "get_weather", arguments: '{"city":"Paris","unit":"celsius"}' },
            },
          ],
        },
        { role: "tool", tool_call_id: "call_1", content: '{"sky":"sunny"}' },
        { role: "user", content: "Thanks, and?" },
      ],
      tools: [tool],
      max_tokens: 50,
      temperature: 0.2,
      top_p: 0.9,
      stop: "END",
      user: "user-7",
    });
    expect(res.status).toBe(200);
    expect(lastRequest()?.body).toEqual({
      model: fake.model,
      max_tokens: 50,
      system: "Be brief.\n\nUse metric units.",
      messages: [
        { role: "user", content: [{ type: "text", text: "Weather in Paris?" }] },
        {
          role: "assistant",
          content: [
            {
              type: "tool_use",
              id: "call_1",
              name: "get_weather",
              input: { city: "Paris", unit: "celsius" },
            },
          ],
        },
        // The tool result and the next user turn merge: Anthropic wants the roles alternating.
        {
          role: "user",
          content: [
            { type: "tool_result", tool_use_id: "call_1", content: '{"sky":"sunny"}' },
            { type: "text", text: "Thanks, and?" },
          ],
        },
      ],
      tools: [{ name: "get_weather", description: "Weather", input_schema: weather }],
      temperature: 0.2,
      top_p: 0.9,
      stop_sequences: ["END"],
      metadata: { user_id: "user-7" },
    });
    publishedShapesOnly();
  });

  test.each([
    ["auto", { type: "auto" }],
    ["required", { type: "any" }],
    ["none", { type: "none" }],
    ["named", { type: "tool", name: "get_weather" }],
  ])("tool_choice %s", async (name, expected) => {
    const choice = name === "named" ? { type: "function", function: { name: "get_weather" } } : name;
    await chat({ tools: [tool], tool_choice: choice });
    expect(lastRequest()?.body.tool_choice).toEqual(expected);
  });

  test("parallel_tool_calls: false disables parallel tool use", async () => {
    await chat({ tools: [tool], tool_choice: "required", parallel_tool_calls: false });
    expect(lastRequest()?.body.tool_choice).toEqual({ type: "any", disable_parallel_tool_use: true });
  });

  test("json_schema becomes output_config.format; json_object an instruction", async () => {
    const schema = { type: "object", properties: { answer: { type: "string" } }, required: ["answer"] };
    const res = await chat({
      response_format: { type: "json_schema", json_schema: { name: "verdict", schema } },
    });
    expect(lastRequest()?.body.output_config).toEqual({ format: { type: "json_schema", schema } });
    const answer: OpenAI.ChatCompletion = await res.json();
    expect(JSON.parse(answer.choices[0]?.message.content ?? "")).toEqual({ answer: "yes" });
    await chat({ response_format: { type: "json_object" } });
    expect(lastRequest()?.body.system).toContain("JSON object");
    publishedShapesOnly();
  });

  test.each([
    ["n", { n: 2 }],
    ["logprobs", { logprobs: true }],
    ["temperature", { temperature: 1.5 }],
    ["presence_penalty", { presence_penalty: 0.5 }],
    ["logit_bias", { logit_bias: { "42": 10 } }],
  ])(
    "%s Anthropic cannot honour is refused with a 400 naming it, before anything is sent",
    (param, extra) => {
      const body = JSON.stringify({ messages: hello, ...extra });
      let refusal: unknown;
      try {
        anthropicWire.request(target, "/v1/chat/completions", body, false);
      } catch (error) {
        refusal = error;
      }
      expect(refusal).toBeInstanceOf(WireRefusal);
      if (!(refusal instanceof WireRefusal)) return;
      expect(refusal.status).toBe(400);
      expect(refusal.body.error).toMatchObject({ type: "invalid_request_error", param });
      expect(spec.error(refusal.body)).toEqual([]);
    },
  );

  test("embeddings are refused: Anthropic has none", () => {
    expect(() =>
      anthropicWire.request(target, "/v1/embeddings", JSON.stringify({ input: "x" }), false),
    ).toThrow(/no embeddings/);
  });

  test("the probe lists models with the key", async () => {
    const probe = anthropicWire.probe(target);
    expect(probe.url).toBe(`${fake.baseUrl}/v1/models`);
    expect((await fetch(probe.url, { headers: probe.headers })).status).toBe(200);
    const wrong = anthropicWire.probe({ ...target, apiKey: "sk-ant-wrong" });
    expect((await fetch(wrong.url, { headers: wrong.headers })).status).toBe(401);
  });
});

describe("the answer", () => {
  test("text: a chat.completion OpenAI's document accepts; usage counts cache reads as cached prompt tokens", async () => {
    fake.cacheRead = 5;
    const res = await chat({});
    const body: OpenAI.ChatCompletion = await res.json();
    expect(spec.answer("POST /chat/completions", body)).toEqual([]);
    expect(body.choices[0]?.message).toMatchObject({ role: "assistant", content: "You said: Hello there" });
    expect(body.choices[0]?.finish_reason).toBe("stop");
    expect(body.model).toBe(fake.model);
    // input_tokens (2) are the uncached ones: prompt_tokens add the 5 read from the cache.
    expect(body.usage).toEqual({
      prompt_tokens: 7,
      completion_tokens: 4,
      total_tokens: 11,
      prompt_tokens_details: { cached_tokens: 5 },
    });
    publishedShapesOnly();
  });

  test.each([
    ["max_tokens → length", { max_tokens: 2 }, "length"],
    ["stop_sequence → stop", { stop: ["there"] }, "stop"],
    ["tool_use → tool_calls", { tools: [tool], tool_choice: "required" }, "tool_calls"],
  ] as const)("stop reason %s", async (_, extra, finish) => {
    const body: OpenAI.ChatCompletion = await (await chat(extra)).json();
    expect(spec.answer("POST /chat/completions", body)).toEqual([]);
    expect(body.choices[0]?.finish_reason).toBe(finish);
  });

  test("a tool_use block becomes a tool call with its input as the arguments' JSON", async () => {
    const body: OpenAI.ChatCompletion = await (await chat({ tools: [tool], tool_choice: "required" })).json();
    const message = body.choices[0]?.message;
    expect(message?.content).toBeNull();
    expect(message?.tool_calls).toEqual([
      {
        id: "toolu_fake01",
        type: "function",
        function: { name: "get_weather", arguments: '{"city":"Paris","unit":"celsius"}' },
      },
    ]);
  });

  test("streamed text: chunks OpenAI's document accepts, a usage chunk, then [DONE]", async () => {
    fake.cacheRead = 3;
    const res = await chat({ stream: true, stream_options: { include_usage: true } }, true);
    expect(res.headers.get("content-type")).toStartWith("text/event-stream");
    const { events, done } = await streamed(res);
    expect(done).toBe(true);
    const problems = events.flatMap((e, i) =>
      spec.event("POST /chat/completions", e).map((p) => `${i}: ${p}`),
    );
    expect(problems).toEqual([]);
    const chunks = events as OpenAI.ChatCompletionChunk[];
    expect(chunks[0]?.choices[0]?.delta.role).toBe("assistant");
    expect(chunks.map((c) => c.choices[0]?.delta.content ?? "").join("")).toBe("You said: Hello there");
    expect(chunks.at(-2)?.choices[0]?.finish_reason).toBe("stop");
    expect(chunks.at(-1)?.choices).toEqual([]);
    expect(chunks.at(-1)?.usage).toMatchObject({
      prompt_tokens: 5,
      completion_tokens: 4,
      prompt_tokens_details: { cached_tokens: 3 },
    });
    publishedShapesOnly();
  });

  test("streamed tool call: id and name first, input_json_delta pieces as the arguments", async () => {
    const res = await chat({ tools: [tool], tool_choice: "required", stream: true }, true);
    const { events, done } = await streamed(res);
    expect(done).toBe(true);
    expect(events.flatMap((e) => spec.event("POST /chat/completions", e))).toEqual([]);
    const calls = (events as OpenAI.ChatCompletionChunk[]).flatMap(
      (c) => c.choices[0]?.delta.tool_calls ?? [],
    );
    expect(calls[0]).toMatchObject({
      index: 0,
      id: "toolu_fake01",
      type: "function",
      function: { name: "get_weather" },
    });
    expect(calls.length).toBeGreaterThan(2);
    expect(JSON.parse(calls.map((c) => c.function?.arguments ?? "").join(""))).toEqual({
      city: "Paris",
      unit: "celsius",
    });
    const finishes = (events as OpenAI.ChatCompletionChunk[])
      .map((c) => c.choices[0]?.finish_reason)
      .filter(Boolean);
    expect(finishes).toEqual(["tool_calls"]);
  });

  test("an error event in the middle of a stream: an OpenAI error event and no [DONE]", async () => {
    fake.failStreamNext = true;
    const { events, done } = await streamed(await chat({ stream: true }, true));
    expect(done).toBe(false);
    const last = events.at(-1);
    expect(spec.error(last)).toEqual([]);
    expect(last).toMatchObject({ error: { message: "Overloaded", code: "overloaded_error" } });
  });

  test.each([
    [400, "invalid_request_error", "invalid_request_error"],
    [403, "permission_error", "permission_error"],
    [429, "rate_limit_error", "rate_limit_error"],
    [500, "api_error", "server_error"],
    [529, "overloaded_error", "server_error"],
  ])("Anthropic's %i %s keeps its status with OpenAI's error body", async (status, type, openAiType) => {
    fake.failNext = { status, type, message: `fake ${type}` };
    const res = await chat({});
    expect(res.status).toBe(status);
    const body = await jsonBody<OpenAIError>(res);
    expect(spec.error(body)).toEqual([]);
    expect(body.error).toEqual({ message: `fake ${type}`, type: openAiType, param: null, code: type });
  });

  test("a wrong key is Anthropic's 401, kept (the gateway makes it its 502 upstream_auth_failed)", async () => {
    const res = await exchange(anthropicWire, { ...target, apiKey: "sk-ant-wrong" }, "/v1/chat/completions", {
      messages: hello,
    });
    expect(res.status).toBe(401);
    expect((await jsonBody<OpenAIError>(res)).error).toMatchObject({
      type: "authentication_error",
      code: "authentication_error",
    });
  });

  test("an unknown model is Anthropic's 404", async () => {
    const res = await exchange(anthropicWire, { ...target, model: "claude-nope" }, "/v1/chat/completions", {
      messages: hello,
    });
    expect(res.status).toBe(404);
    expect((await jsonBody<OpenAIError>(res)).error.code).toBe("not_found_error");
  });

  test("a 2xx that is not a message is the upstream failing: 502", async () => {
    const res = await anthropicWire.response(
      Response.json({ hello: "world" }),
      "/v1/chat/completions",
      false,
      target,
    );
    expect(res.status).toBe(502);
  });
});

describe("the openai client, through the adapter", () => {
  const client = () => new OpenAI({ baseURL: server.baseUrl, apiKey: "unused", maxRetries: 0 });

  test("chat, streamed chat with usage and tools", async () => {
    const answer = await client().chat.completions.create({
      model: "support-bot",
      messages: [{ role: "user", content: "Hi" }],
    });
    expect(answer.choices[0]?.message.content).toBe("You said: Hi");

    const stream = await client().chat.completions.create({
      model: "support-bot",
      messages: [{ role: "user", content: "Hi you" }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = "";
    let usage: OpenAI.CompletionUsage | undefined | null;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? "";
      usage = chunk.usage ?? usage;
    }
    expect(text).toBe("You said: Hi you");
    expect(usage?.total_tokens).toBeGreaterThan(0);

    const runner = client().chat.completions.stream({
      model: "support-bot",
      messages: [{ role: "user", content: "Weather?" }],
      tools: [{ type: "function", function: { name: "get_weather", parameters: weather } }],
      tool_choice: "required",
    });
    const final = await runner.finalChatCompletion();
    expect(
      JSON.parse(
        final.choices[0]?.message.tool_calls?.[0]?.type === "function"
          ? final.choices[0].message.tool_calls[0].function.arguments
          : "",
      ),
    ).toEqual({ city: "Paris", unit: "celsius" });
  });

  test("Anthropic's 429 reaches the client as a RateLimitError", async () => {
    fake.failNext = { status: 429, type: "rate_limit_error", message: "slow down" };
    const error = await client()
      .chat.completions.create({ model: "support-bot", messages: [{ role: "user", content: "Hi" }] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
  });
});
