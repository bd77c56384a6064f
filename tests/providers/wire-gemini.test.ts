// The Gemini wire adapter (adapters/upstream/wire/gemini.ts) against a fake of Google's Gemini API
// (tests/fakes/gemini) that checks the key, the model and the request's field names: OpenAI chat,
// completions and embeddings in, generateContent / streamGenerateContent / batchEmbedContents out, and
// the answers, streams, finish reasons, usage and errors back in OpenAI's shapes, checked against
// OpenAI's published OpenAPI document and read by the real `openai` client.
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import OpenAI from "openai";
import { geminiWire } from "#adapters/upstream/wire/gemini.ts";
import { WireRefusal } from "#adapters/upstream/wire/openai-side.ts";
import type { UpstreamTarget } from "#adapters/upstream/wire/wire.ts";
import type { OpenAIError } from "#contracts/openai/error.ts";
import { weather } from "../engines/worker-support.ts";
import { type FakeGemini, startFakeGemini, thoughtSignature } from "../fakes/gemini/server.ts";
import { jsonBody } from "../support/json.ts";
import { type OpenAiSpec, openAiSpec } from "../support/openai-spec.ts";
import { type AdapterServer, exchange, serveAdapter, streamed } from "./wire-support.ts";

let fake: FakeGemini;
let target: UpstreamTarget;
let spec: OpenAiSpec;
let server: AdapterServer;

beforeAll(async () => {
  fake = startFakeGemini();
  target = { endpoint: fake.baseUrl, model: fake.model, apiKey: fake.apiKey };
  server = serveAdapter(geminiWire, target);
  spec = await openAiSpec();
  spec.prepare(["POST /chat/completions", "POST /completions", "POST /embeddings"]);
}, 60_000);
afterAll(() => {
  server.stop();
  fake.stop();
});
beforeEach(() => {
  fake.requests.length = 0;
  fake.cached = 0;
});

const hello = [{ role: "user", content: "Hello there" }];
const tool = {
  type: "function",
  function: { name: "get_weather", description: "Weather", parameters: weather },
};
const chat = (body: object, stream = false) =>
  exchange(
    geminiWire,
    target,
    "/v1/chat/completions",
    { model: "support-bot", messages: hello, ...body },
    stream,
  );
const lastRequest = () => fake.requests.at(-1);

describe("the request", () => {
  test("generateContent of the upstream model, the key in x-goog-api-key", async () => {
    const request = geminiWire.request(
      target,
      "/v1/chat/completions",
      JSON.stringify({ messages: hello }),
      false,
    );
    expect(request.url).toBe(`${fake.baseUrl}/v1beta/models/${fake.model}:generateContent`);
    expect(request.headers["x-goog-api-key"]).toBe(fake.apiKey);
    const streaming = geminiWire.request(
      { ...target, endpoint: `${fake.baseUrl}/v1beta/`, model: `models/${fake.model}` },
      "/v1/chat/completions",
      JSON.stringify({ messages: hello }),
      true,
    );
    expect(streaming.url).toBe(`${fake.baseUrl}/v1beta/models/${fake.model}:streamGenerateContent?alt=sse`);
    expect((await chat({})).status).toBe(200);
  });

  test("system turns, function calls and results, tools and generation settings in Gemini's fields", async () => {
    const schema = { type: "object", properties: { answer: { type: "string" } }, required: ["answer"] };
    const res = await chat({
      messages: [
        { role: "system", content: "Be brief." },
        { role: "user", content: "Weather in Paris?" },
        {
          role: "assistant",
          content: "Let me look.",
          tool_calls: [
            {
              id: "call_1",
              type: "function",
              function: { name: "get_weather", arguments: '{"city":"Paris","unit":"celsius"}' },
            },
          ],
        },
        { role: "tool", tool_call_id: "call_1", content: "sunny" },
        { role: "user", content: "Thanks" },
      ],
      tools: [tool],
      tool_choice: { type: "function", function: { name: "get_weather" } },
      temperature: 1.5,
      top_p: 0.9,
      max_tokens: 50,
      stop: ["END"],
      seed: 7,
      response_format: { type: "json_schema", json_schema: { name: "verdict", schema } },
    });
    expect(res.status).toBe(200);
    expect(lastRequest()?.body).toEqual({
      systemInstruction: { parts: [{ text: "Be brief." }] },
      contents: [
        { role: "user", parts: [{ text: "Weather in Paris?" }] },
        {
          role: "model",
          parts: [
            { text: "Let me look." },
            { functionCall: { name: "get_weather", args: { city: "Paris", unit: "celsius" } } },
          ],
        },
        // The result is named by the call it answers; it and the next user turn merge into one turn.
        {
          role: "user",
          parts: [
            { functionResponse: { name: "get_weather", response: { result: "sunny" } } },
            { text: "Thanks" },
          ],
        },
      ],
      tools: [
        {
          functionDeclarations: [
            { name: "get_weather", description: "Weather", parametersJsonSchema: weather },
          ],
        },
      ],
      toolConfig: { functionCallingConfig: { mode: "ANY", allowedFunctionNames: ["get_weather"] } },
      generationConfig: {
        temperature: 1.5,
        topP: 0.9,
        maxOutputTokens: 50,
        stopSequences: ["END"],
        seed: 7,
        responseMimeType: "application/json",
        responseJsonSchema: schema,
      },
    });
  });

  test.each([
    ["auto", { mode: "AUTO" }],
    ["required", { mode: "ANY" }],
    ["none", { mode: "NONE" }],
  ])("tool_choice %s", async (choice, expected) => {
    await chat({ tools: [tool], tool_choice: choice });
    expect(lastRequest()?.body.toolConfig).toEqual({ functionCallingConfig: expected });
  });

  test("json_object asks for application/json without a schema", async () => {
    const body: OpenAI.ChatCompletion = await (
      await chat({ response_format: { type: "json_object" } })
    ).json();
    expect(lastRequest()?.body.generationConfig).toEqual({ responseMimeType: "application/json" });
    expect(JSON.parse(body.choices[0]?.message.content ?? "")).toEqual({ answer: "yes" });
  });

  test.each([
    ["n", { n: 2 }],
    ["logprobs", { logprobs: true }],
    [
      "messages[0].content[0]",
      {
        messages: [{ role: "user", content: [{ type: "image_url", image_url: { url: "https://x/y.png" } }] }],
      },
    ],
    [
      "messages[0].tool_call_id",
      { messages: [{ role: "tool", tool_call_id: "call_unknown", content: "x" }] },
    ],
  ])("%s is refused with a 400 naming it, before anything is sent", (param, extra) => {
    let refusal: unknown;
    try {
      geminiWire.request(
        target,
        "/v1/chat/completions",
        JSON.stringify({ messages: hello, ...extra }),
        false,
      );
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(WireRefusal);
    if (refusal instanceof WireRefusal) expect(refusal.body.error.param).toBe(param);
  });

  test("an image as a data: URL goes inline", () => {
    const content = [
      { type: "text", text: "What is it?" },
      { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=" } },
    ];
    const request = geminiWire.request(
      target,
      "/v1/chat/completions",
      JSON.stringify({ messages: [{ role: "user", content }] }),
      false,
    );
    expect(JSON.parse(request.body).contents[0].parts).toEqual([
      { text: "What is it?" },
      { inlineData: { mimeType: "image/png", data: "iVBORw0KGgo=" } },
    ]);
  });

  test("the probe lists models with the key", async () => {
    const probe = geminiWire.probe(target);
    expect(probe.url).toBe(`${fake.baseUrl}/v1beta/models`);
    expect((await fetch(probe.url, { headers: probe.headers })).status).toBe(200);
  });
});

describe("the answer", () => {
  test("text: a chat.completion OpenAI's document accepts; usage with cached tokens", async () => {
    fake.cached = 4;
    const body: OpenAI.ChatCompletion = await (await chat({})).json();
    expect(spec.answer("POST /chat/completions", body)).toEqual([]);
    expect(body.choices[0]?.message.content).toBe("You said: Hello there");
    expect(body.choices[0]?.finish_reason).toBe("stop");
    expect(body.model).toBe(fake.model);
    expect(body.usage).toEqual({
      prompt_tokens: 6,
      completion_tokens: 4,
      total_tokens: 10,
      prompt_tokens_details: { cached_tokens: 4 },
    });
  });

  test.each([
    ["MAX_TOKENS → length", { max_tokens: 2 }, "length"],
    [
      "SAFETY → content_filter",
      { messages: [{ role: "user", content: "something unsafe" }] },
      "content_filter",
    ],
    ["STOP after a function call → tool_calls", { tools: [tool], tool_choice: "required" }, "tool_calls"],
  ] as const)("finish reason %s", async (_, extra, finish) => {
    const body: OpenAI.ChatCompletion = await (await chat(extra)).json();
    expect(spec.answer("POST /chat/completions", body)).toEqual([]);
    expect(body.choices[0]?.finish_reason).toBe(finish);
  });

  test("a functionCall becomes a tool call with an id and its args as the arguments' JSON", async () => {
    const body: OpenAI.ChatCompletion = await (await chat({ tools: [tool], tool_choice: "required" })).json();
    const call = body.choices[0]?.message.tool_calls?.[0];
    expect(call?.id).toStartWith("call_");
    expect(call?.type === "function" && call.function).toEqual({
      name: "get_weather",
      arguments: '{"city":"Paris","unit":"celsius"}',
    });
  });

  test("a function call's thought signature goes to the client and back, as Gemini 3 requires", async () => {
    fake.requireSignatures = true;
    try {
      const ask = [{ role: "user", content: "Weather in Paris?" }];
      const body: OpenAI.ChatCompletion = await (await chat({ messages: ask, tools: [tool] })).json();
      expect(spec.answer("POST /chat/completions", body)).toEqual([]);
      const message = body.choices[0]?.message;
      expect(message?.tool_calls?.[0]).toMatchObject({
        extra_content: { google: { thought_signature: thoughtSignature } },
      });
      const result = { role: "tool", tool_call_id: message?.tool_calls?.[0]?.id, content: "sunny" };
      const next = await chat({ messages: [...ask, message, result], tools: [tool] });
      expect(next.status).toBe(200);
      expect((await jsonBody<OpenAI.ChatCompletion>(next)).choices[0]?.message.content).toBe(
        "It is sunny in Paris.",
      );
      // The same turn without the signature: what Gemini 3 answers, passed on with its status.
      const unsigned = {
        ...message,
        tool_calls: message?.tool_calls?.map((call) =>
          call.type === "function" ? { id: call.id, type: call.type, function: call.function } : call,
        ),
      };
      expect((await chat({ messages: [...ask, unsigned, result], tools: [tool] })).status).toBe(400);
      const streamedCall = await streamed(await chat({ messages: ask, tools: [tool], stream: true }, true));
      const delta = (streamedCall.events as OpenAI.ChatCompletionChunk[]).flatMap(
        (c) => c.choices[0]?.delta.tool_calls ?? [],
      );
      expect(delta[0]).toMatchObject({ extra_content: { google: { thought_signature: thoughtSignature } } });
    } finally {
      fake.requireSignatures = false;
    }
  });

  test("streamed text: chunks OpenAI's document accepts, a usage chunk, then [DONE]", async () => {
    const res = await chat({ stream: true, stream_options: { include_usage: true } }, true);
    expect(lastRequest()?.method).toBe("streamGenerateContent");
    const { events, done } = await streamed(res);
    expect(done).toBe(true);
    expect(events.flatMap((e) => spec.event("POST /chat/completions", e))).toEqual([]);
    const chunks = events as OpenAI.ChatCompletionChunk[];
    expect(chunks[0]?.choices[0]?.delta.role).toBe("assistant");
    expect(chunks.map((c) => c.choices[0]?.delta.content ?? "").join("")).toBe("You said: Hello there");
    expect(chunks.at(-2)?.choices[0]?.finish_reason).toBe("stop");
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { prompt_tokens: 2, completion_tokens: 4 } });
  });

  test("streamed function call: one delta with id, name and arguments, finish tool_calls", async () => {
    const { events, done } = await streamed(
      await chat({ tools: [tool], stream: true, messages: [{ role: "user", content: "weather?" }] }, true),
    );
    expect(done).toBe(true);
    expect(events.flatMap((e) => spec.event("POST /chat/completions", e))).toEqual([]);
    const chunks = events as OpenAI.ChatCompletionChunk[];
    const calls = chunks.flatMap((c) => c.choices[0]?.delta.tool_calls ?? []);
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ index: 0, type: "function", function: { name: "get_weather" } });
    expect(chunks.map((c) => c.choices[0]?.finish_reason).filter(Boolean)).toEqual(["tool_calls"]);
  });

  test("a stream that ends without a finish reason: an error event and no [DONE]", async () => {
    const upstream = new Response(
      'data: {"candidates":[{"content":{"parts":[{"text":"Hi"}],"role":"model"}}]}\r\n\r\n',
      {
        headers: { "content-type": "text/event-stream" },
      },
    );
    const { events, done } = await streamed(
      await geminiWire.response(upstream, "/v1/chat/completions", true, target),
    );
    expect(done).toBe(false);
    expect(spec.error(events.at(-1))).toEqual([]);
  });

  test.each([
    [400, "INVALID_ARGUMENT", "invalid_request_error"],
    [403, "PERMISSION_DENIED", "permission_error"],
    [404, "NOT_FOUND", "not_found_error"],
    [429, "RESOURCE_EXHAUSTED", "rate_limit_error"],
    [503, "UNAVAILABLE", "server_error"],
  ])("Google's %i %s keeps its status with OpenAI's error body", async (code, status, type) => {
    fake.failNext = { code, status, message: `fake ${status}` };
    const res = await chat({});
    expect(res.status).toBe(code);
    const body = await jsonBody<OpenAIError>(res);
    expect(spec.error(body)).toEqual([]);
    expect(body.error).toEqual({ message: `fake ${status}`, type, param: null, code: status });
  });

  test("a key Google refuses (400 API_KEY_INVALID) is a 401: the credential refused, not the request", async () => {
    const res = await exchange(geminiWire, { ...target, apiKey: "AIza-wrong" }, "/v1/chat/completions", {
      messages: hello,
    });
    expect(res.status).toBe(401);
    expect((await jsonBody<OpenAIError>(res)).error).toMatchObject({
      type: "authentication_error",
      code: "INVALID_ARGUMENT",
    });
  });

  test("embeddings through batchEmbedContents: an embeddings list OpenAI's document accepts", async () => {
    const embeddingTarget = { ...target, model: fake.embeddingModel };
    const res = await exchange(geminiWire, embeddingTarget, "/v1/embeddings", {
      model: "emb",
      input: ["one", "two"],
    });
    expect(lastRequest()?.method).toBe("batchEmbedContents");
    expect(lastRequest()?.body).toEqual({
      requests: ["one", "two"].map((text) => ({
        model: `models/${fake.embeddingModel}`,
        content: { parts: [{ text }] },
      })),
    });
    const body: OpenAI.CreateEmbeddingResponse = await res.json();
    expect(spec.answer("POST /embeddings", body)).toEqual([]);
    expect(body.data.map((d) => d.index)).toEqual([0, 1]);
    expect(body.data[0]?.embedding).toHaveLength(8);
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
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? "";
    expect(text).toBe("You said: Hi you");
    const final = await client()
      .chat.completions.stream({
        model: "support-bot",
        messages: [{ role: "user", content: "Weather?" }],
        tools: [{ type: "function", function: { name: "get_weather", parameters: weather } }],
      })
      .finalChatCompletion();
    expect(final.choices[0]?.finish_reason).toBe("tool_calls");
  });

  test("Google's 429 reaches the client as a RateLimitError", async () => {
    fake.failNext = { code: 429, status: "RESOURCE_EXHAUSTED", message: "quota" };
    const error = await client()
      .chat.completions.create({ model: "support-bot", messages: [{ role: "user", content: "Hi" }] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
  });
});
