// The OpenAI Agents SDK (@openai/agents) running an agent with one function tool against a self-hosted
// llama.cpp deployment of the tiny random-weight model, through the gateway's Responses API: the SDK's
// OpenAI client points at the gateway with a platform key, tracing export off. The tiny model's words
// are noise, so the first turn is made to call the tool (`toolChoice: "required"`); what is checked is
// that the tool ran with arguments the schema allows, the tool's result went back to the model, and
// the run ended without an error.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { Agent, OpenAIProvider, Runner, setTracingDisabled, tool } from "@openai/agents";
import Ajv from "ajv";
import OpenAI from "openai";
import { weather } from "../engines/worker-support.ts";
import { startTinyDeployment, type TinyDeployment } from "./tiny-deployment.ts";

let tiny: TinyDeployment;

beforeAll(async () => {
  // Nothing leaves this machine: no traces to OpenAI's platform.
  setTracingDisabled(true);
  tiny = await startTinyDeployment();
}, 120_000);
afterAll(() => tiny.close(), 60_000);

test("an agent with one function tool runs to its end through /v1/responses", async () => {
  const client = new OpenAI({ apiKey: tiny.apiKey, baseURL: tiny.baseUrl, maxRetries: 0 });
  const runner = new Runner({
    modelProvider: new OpenAIProvider({ openAIClient: client, useResponses: true }),
    tracingDisabled: true,
  });
  const calls: unknown[] = [];
  const getWeather = tool({
    name: "get_weather",
    description: "Today's weather in a city",
    // The same schema as `weather`, written out: the SDK's type wants its arrays mutable.
    parameters: {
      type: "object",
      properties: {
        city: { type: "string", maxLength: 12 },
        unit: { type: "string", enum: ["celsius", "fahrenheit"] },
      },
      required: ["city", "unit"],
      additionalProperties: false,
    },
    strict: true,
    execute: async (input) => {
      calls.push(input);
      return "sunny, 21 degrees";
    },
    // Offered once: after it ran, the model answers in words and the run ends.
    isEnabled: () => calls.length === 0,
  });
  const agent = new Agent({
    name: "forecaster",
    instructions: "Answer with the weather.",
    model: tiny.model,
    tools: [getWeather],
    modelSettings: { toolChoice: "required", maxTokens: 300 },
  });

  const result = await runner.run(agent, "What is the weather in Paris?", { maxTurns: 4 });

  expect(calls.length).toBe(1);
  const validate = new Ajv().compile(weather);
  expect(validate(calls[0])).toBe(true);
  const items = result.newItems.map((item) => item.type);
  expect(items).toContain("tool_call_item");
  expect(items).toContain("tool_call_output_item");
  expect(typeof result.finalOutput).toBe("string");
  // The last turn was a stored response of the gateway that carried the tool's result to the model.
  const last = result.lastResponseId;
  if (!last) throw new Error("the run has no last response id");
  const answered = await client.responses.inputItems.list(last, { order: "asc" });
  expect(answered.data.map((item) => item.type)).toContain("function_call_output");
}, 120_000);
