// The chat request the gateway checks is OpenAI's: what the openai SDK sends for tools, structured
// outputs, logprobs and an agent loop's tool turns passes validation and reaches the replica unchanged;
// the same fields with a wrong shape are refused with a 400 naming the field.
import { afterAll, beforeAll, expect, test } from "bun:test";
import OpenAI from "openai";
import type { OpenAIError } from "#contracts/openai/error.ts";
import { jsonBody } from "../support/json.ts";
import { chat, type GatewayTest, startGatewayTest } from "./support.ts";

let g: GatewayTest;
beforeAll(async () => {
  g = await startGatewayTest();
}, 30_000);
afterAll(() => g.close(), 30_000);

const weather = {
  type: "function" as const,
  function: {
    name: "get_weather",
    description: "The weather in a city",
    parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
    strict: true,
  },
};

test("tools, tool_choice, response_format, logprobs and the rest reach the replica unchanged", async () => {
  const client = new OpenAI({ baseURL: `${g.url}/v1`, apiKey: g.key, maxRetries: 0 });
  const fields = {
    tools: [weather],
    tool_choice: { type: "function" as const, function: { name: "get_weather" } },
    parallel_tool_calls: false,
    response_format: {
      type: "json_schema" as const,
      json_schema: { name: "answer", schema: { type: "object" }, strict: true },
    },
    logprobs: true,
    top_logprobs: 3,
    logit_bias: { "50256": -100 },
    seed: 7,
    user: "user-1",
    max_completion_tokens: 16,
    metadata: { purpose: "test" },
  };
  await client.chat.completions.create({
    model: g.model,
    messages: [
      { role: "system", content: "Be brief." },
      { role: "user", content: "Weather in Paris?" },
      {
        role: "assistant",
        content: null,
        tool_calls: [
          {
            id: "call_1",
            type: "function",
            function: { name: "get_weather", arguments: '{"city":"Paris"}' },
          },
        ],
      },
      { role: "tool", tool_call_id: "call_1", content: '{"celsius": 21}' },
    ],
    ...fields,
  });
  const received = g.stub.received.at(-1) as Record<string, unknown>;
  expect(received).toMatchObject(fields);
  expect((received.messages as unknown[]).length).toBe(4);
});

test("tool_choice as a word, and an assistant message with tool calls and no content", async () => {
  for (const choice of ["none", "auto", "required"]) {
    const response = await chat(g, {
      tools: [weather],
      tool_choice: choice,
      messages: [
        { role: "user", content: "Weather?" },
        {
          role: "assistant",
          tool_calls: [{ id: "c", type: "function", function: { name: "get_weather", arguments: "{}" } }],
        },
        { role: "tool", tool_call_id: "c", content: "sunny" },
      ],
    });
    expect(response.status).toBe(200);
  }
});

test("the same fields with a wrong shape: 400 naming the field", async () => {
  const cases: [Record<string, unknown>, string][] = [
    [{ tool_choice: "sometimes" }, "tool_choice"],
    [{ tools: [{ type: "function", function: { name: "has spaces" } }] }, "tools[0].function.name"],
    [{ response_format: { type: "yaml" } }, "response_format"],
    [{ top_logprobs: 21 }, "top_logprobs"],
    [{ logit_bias: { "50256": 101 } }, "logit_bias"],
    [{ logprobs: "yes" }, "logprobs"],
  ];
  for (const [body, param] of cases) {
    const response = await chat(g, body);
    expect(response.status, JSON.stringify(body)).toBe(400);
    const { error } = await jsonBody<OpenAIError>(response);
    expect(error.param, JSON.stringify(body)).toStartWith(param);
    expect(error.message).toStartWith(param);
  }
});
