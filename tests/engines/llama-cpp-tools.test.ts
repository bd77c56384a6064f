// Tool calling on the llama.cpp worker, with the official openai SDK, on the tiny random-weight model: whatever
// the weights, a required or named call must come out well-formed, its arguments valid against the tool's
// schema (checked by ajv, independently of the grammar that produced them).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import Ajv from "ajv";
import type OpenAI from "openai";
import type { ChatCompletionMessageParam, ChatCompletionTool } from "openai/resources/chat/completions";
import { refusal, startTinyWorker, type TinyWorker, type Worker, weather } from "./worker-support.ts";

let tiny: TinyWorker;
let worker: Worker;

const time = {
  type: "object",
  properties: {
    zone: { type: "string", enum: ["UTC", "Europe/Paris", "Asia/Tokyo"] },
    seconds: { type: "boolean" },
  },
  required: ["zone", "seconds"],
  additionalProperties: false,
} as const;
const tools: ChatCompletionTool[] = [
  {
    type: "function",
    function: { name: "get_weather", description: "Weather of a city", parameters: weather },
  },
  { type: "function", function: { name: "get_time", description: "Time in a zone", parameters: time } },
];
const ajv = new Ajv({ strict: true });
const validators = { get_weather: ajv.compile(weather), get_time: ajv.compile(time) } as const;

/** A call's arguments parse and satisfy its tool's schema. */
function expectValidCall(call: { type: string; id: string; function: { name: string; arguments: string } }) {
  expect(call.type).toBe("function");
  expect(call.id).toMatch(/^call_[0-9a-f]{24}$/);
  const validate = validators[call.function.name as keyof typeof validators];
  expect(validate).toBeDefined();
  const args = JSON.parse(call.function.arguments);
  expect(validate?.(args) ? [] : validate?.errors).toEqual([]);
}

const ask = (content: string): ChatCompletionMessageParam[] => [
  { role: "system", content: "You are a helpful assistant." },
  { role: "user", content },
];

beforeAll(async () => {
  tiny = await startTinyWorker("tiny-tools");
  worker = tiny.worker;
});

afterAll(() => tiny.close());

describe("tool_choice required and named", () => {
  test("required: every seed gives one well-formed call, content null, finish_reason tool_calls", async () => {
    for (const seed of [1, 2, 3, 4, 5, 6]) {
      const res = await worker.client.chat.completions.create({
        model: "tiny-tools",
        messages: ask("What is the weather in Paris?"),
        tools,
        tool_choice: "required",
        max_tokens: 300,
        seed,
      });
      const choice = res.choices[0];
      expect(choice?.finish_reason).toBe("tool_calls");
      expect(choice?.message.content).toBeNull();
      expect(choice?.message.tool_calls).toHaveLength(1);
      const call = choice?.message.tool_calls?.[0];
      if (call?.type !== "function") throw new Error("expected a function call");
      expectValidCall(call);
    }
  });

  test("a named function is the one called", async () => {
    for (const seed of [1, 2, 3]) {
      const res = await worker.client.chat.completions.create({
        model: "tiny-tools",
        messages: ask("What time is it?"),
        tools,
        tool_choice: { type: "function", function: { name: "get_time" } },
        max_tokens: 300,
        seed,
      });
      const call = res.choices[0]?.message.tool_calls?.[0];
      if (call?.type !== "function") throw new Error("expected a function call");
      expect(call.function.name).toBe("get_time");
      expectValidCall(call);
    }
  });

  test("streamed: id, type and name in the first delta, arguments in pieces that the SDK assembles", async () => {
    for (const seed of [7, 8]) {
      const stream = worker.client.chat.completions.stream({
        model: "tiny-tools",
        messages: ask("Weather in Rome?"),
        tools,
        tool_choice: "required",
        max_tokens: 300,
        seed,
      });
      const deltas: OpenAI.ChatCompletionChunk.Choice.Delta.ToolCall[] = [];
      const finishes: (string | null)[] = [];
      const contents: (string | null | undefined)[] = [];
      for await (const chunk of stream) {
        for (const choice of chunk.choices) {
          contents.push(choice.delta.content);
          deltas.push(...(choice.delta.tool_calls ?? []));
          finishes.push(choice.finish_reason);
        }
      }
      const final = await stream.finalChatCompletion();
      // The role chunk says there is no text (null, as OpenAI), and no chunk brings any.
      expect(contents[0]).toBeNull();
      expect(contents.filter((c) => c)).toEqual([]);
      const [first, ...rest] = deltas;
      expect(first?.index).toBe(0);
      expect(first?.id).toMatch(/^call_/);
      expect(first?.type).toBe("function");
      expect(first?.function?.name).toBeOneOf(["get_weather", "get_time"]);
      expect(rest.length).toBeGreaterThan(3);
      for (const piece of rest) {
        expect(piece.id).toBeUndefined();
        expect(piece.function?.name).toBeUndefined();
      }
      expect(finishes.filter((f) => f !== null)).toEqual(["tool_calls"]);
      const call = final.choices[0]?.message.tool_calls?.[0];
      if (call?.type !== "function") throw new Error("expected a function call");
      expect(call.function.arguments).toBe(deltas.map((d) => d.function?.arguments ?? "").join(""));
      expectValidCall(call);
    }
  });

  test("a call cut by max_tokens says so: finish_reason length, arguments as far as they got", async () => {
    const res = await worker.client.chat.completions.create({
      model: "tiny-tools",
      messages: ask("Weather?"),
      tools,
      tool_choice: { type: "function", function: { name: "get_weather" } },
      max_tokens: 50,
      seed: 1,
    });
    expect(res.choices[0]?.finish_reason).toBe("length");
    const call = res.choices[0]?.message.tool_calls?.[0];
    if (call?.type !== "function") throw new Error("expected a function call");
    expect(call.function.name).toBe("get_weather");
    expect(() => JSON.parse(call.function.arguments)).toThrow();
  });
});

describe("tool_choice auto and none", () => {
  test("auto puts the tools into the prompt; none leaves them out; the answer is well-formed either way", async () => {
    const base = { model: "tiny-tools", messages: ask("Weather in Oslo?"), tools, max_tokens: 8, seed: 3 };
    const auto = await worker.client.chat.completions.create({ ...base, tool_choice: "auto" });
    const none = await worker.client.chat.completions.create({ ...base, tool_choice: "none" });
    const omitted = await worker.client.chat.completions.create(base);
    // The chat wrapper documents both functions (names, descriptions, parameter types) in the system prompt.
    expect(auto.usage?.prompt_tokens ?? 0).toBeGreaterThan((none.usage?.prompt_tokens ?? 0) + 50);
    // tools without tool_choice means auto, as at OpenAI.
    expect(omitted.usage?.prompt_tokens).toBe(auto.usage?.prompt_tokens);
    for (const res of [auto, omitted]) {
      const choice = res.choices[0];
      if (choice?.finish_reason === "tool_calls") {
        for (const call of choice.message.tool_calls ?? [])
          if (call.type === "function") expectValidCall(call);
      } else {
        expect(choice?.finish_reason).toBe("length");
        expect(typeof choice?.message.content).toBe("string");
      }
    }
    expect(none.choices[0]?.message.tool_calls).toBeUndefined();
  });
});

describe("an agent loop", () => {
  test("three turns: two calls answered by tool messages, then a text answer", async () => {
    const messages: ChatCompletionMessageParam[] = ask("Weather in Paris, then the time in Tokyo?");
    const promptSizes: number[] = [];
    for (const [turn, toolChoice] of (["required", "required", "none"] as const).entries()) {
      const res = await worker.client.chat.completions.create({
        model: "tiny-tools",
        messages,
        tools,
        tool_choice: toolChoice,
        max_tokens: turn < 2 ? 300 : 10,
        seed: 10 + turn,
      });
      promptSizes.push(res.usage?.prompt_tokens ?? 0);
      const message = res.choices[0]?.message;
      if (!message) throw new Error("no message");
      if (turn < 2) {
        expect(res.choices[0]?.finish_reason).toBe("tool_calls");
        const call = message.tool_calls?.[0];
        if (call?.type !== "function") throw new Error("expected a function call");
        expectValidCall(call);
        // The SDK's message goes back as it came (content null, tool_calls), then the tool's result.
        messages.push(message as ChatCompletionMessageParam);
        messages.push({
          role: "tool",
          tool_call_id: call.id,
          content: JSON.stringify({ result: `r${turn}` }),
        });
      } else {
        expect(typeof message.content).toBe("string");
        expect(message.tool_calls).toBeUndefined();
      }
    }
    // Each turn's prompt holds the calls and results before it (the last one without the tools' instructions).
    const fresh = await worker.client.chat.completions.create({
      model: "tiny-tools",
      messages: ask("Weather in Paris, then the time in Tokyo?"),
      tools,
      tool_choice: "none",
      max_tokens: 1,
    });
    expect(promptSizes[1] ?? 0).toBeGreaterThan((promptSizes[0] ?? 0) + 20);
    expect(promptSizes[2] ?? 0).toBeGreaterThan((fresh.usage?.prompt_tokens ?? 0) + 40);
  });
});

describe("refusals", () => {
  test("tool_choice required without tools, or naming an unknown function", async () => {
    expect((await refusal(worker, { tool_choice: "required" })).param).toBe("tool_choice");
    const unknown = await refusal(worker, {
      tools,
      tool_choice: { type: "function", function: { name: "nope" } },
    });
    expect(unknown.param).toBe("tool_choice");
    expect(unknown.message).toContain("nope");
  });

  test("tool parameters as clients write them are enforced; an invalid schema is named", async () => {
    const bounded = [
      {
        type: "function" as const,
        function: {
          name: "f",
          parameters: {
            type: "object",
            properties: {
              n: { type: "integer", minimum: 3, maximum: 9 },
              day: { type: "string", format: "date" },
              code: { type: "string", pattern: "^[A-Z]{2}\\d$" },
            },
            required: ["n", "day", "code"],
            additionalProperties: false,
          },
        },
      },
    ];
    const validate = new Ajv({ strict: false }).compile(bounded[0]?.function.parameters ?? {});
    for (const seed of [1, 2, 3]) {
      const res = await worker.client.chat.completions.create({
        model: "tiny-tools",
        messages: [{ role: "user", content: "x" }],
        tools: bounded,
        tool_choice: "required",
        seed,
      });
      const call = res.choices[0]?.message.tool_calls?.[0];
      expect(call?.type).toBe("function");
      const args = JSON.parse(call?.type === "function" ? call.function.arguments : "");
      expect(validate(args) ? [] : validate.errors).toEqual([]);
      expect(/^\d{4}-\d{2}-\d{2}$/.test(args.day)).toBe(true);
    }
    const bad = await refusal(worker, {
      tools: [
        {
          type: "function",
          function: {
            name: "f",
            parameters: { type: "object", properties: { n: { type: "integer", minimum: "three" } } },
          },
        },
      ],
      tool_choice: "required",
    });
    expect(bad.param).toBe("tools[0].function.parameters");
    expect(bad.message).toContain("/properties/n/minimum must be number");
  });

  test("a tool message must answer a call made earlier; arguments sent back must be JSON", async () => {
    const orphan = await refusal(worker, {
      messages: [
        { role: "user", content: "x" },
        { role: "tool", tool_call_id: "call_unknown", content: "42" },
      ],
    });
    expect(orphan.param).toBe("messages[1].tool_call_id");
    const notJson = await refusal(worker, {
      messages: [
        { role: "user", content: "x" },
        {
          role: "assistant",
          content: null,
          tool_calls: [
            { id: "call_1", type: "function", function: { name: "get_time", arguments: "{nope" } },
          ],
        },
        { role: "tool", tool_call_id: "call_1", content: "42" },
      ],
    });
    expect(notJson.param).toBe("messages[1].tool_calls[0].function.arguments");
  });
});
