// JSON Schemas that become grammars have OpenAI's structured-outputs size limits (issue 33, finding 9:
// a json_schema with one 50,000-value enum held a llama.cpp worker's slot 84-90 s): at most 1,000 enum
// values in all, an enum of more than 250 values at most 15,000 characters, 10 levels of nesting,
// 5,000 properties, 120,000 characters of names and values. Past one: 400 naming the schema at once,
// before the request reaches a replica.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { schemaLimits, schemaSizeProblem } from "#adapters/engines/schema-limits.ts";
import type { OpenAIError } from "#contracts/openai/error.ts";
import { jsonBody } from "../support/json.ts";
import { chat, type GatewayTest, startGatewayTest } from "./support.ts";

let g: GatewayTest;
beforeAll(async () => {
  g = await startGatewayTest();
}, 30_000);
afterAll(() => g.close(), 30_000);

const withSchema = (schema: Record<string, unknown>) => ({
  response_format: { type: "json_schema", json_schema: { name: "answer", schema } },
});
const enumOf = (n: number, width = 1) => Array.from({ length: n }, (_, i) => `v${i}`.padEnd(width, "x"));
const nested = (levels: number): Record<string, unknown> =>
  levels <= 1
    ? { type: "string" }
    : { type: "object", properties: { a: nested(levels - 1) }, required: ["a"] };
const wide = (n: number) => ({
  type: "object",
  properties: Object.fromEntries(Array.from({ length: n }, (_, i) => [`p${i}`, { type: "integer" }])),
});

test.each([
  ["one enum of 50,000 values", { type: "string", enum: enumOf(50_000) }, "enum values"],
  [
    "two enums of 600 values",
    { type: "object", properties: { a: { enum: enumOf(600) }, b: { enum: enumOf(600) } } },
    "enum values",
  ],
  ["an enum of 300 values of 60 characters", { enum: enumOf(300, 60) }, "characters in all"],
  ["11 levels of nesting", nested(11), "deeper than 10"],
  ["5,001 properties", wide(5001), "5000 object properties"],
])(
  "%s: 400 at once, never sent to the replica",
  async (_, schema, words) => {
    const before = g.stub.received.length;
    const started = performance.now();
    const res = await chat(g, withSchema(schema));
    expect(res.status).toBe(400);
    const { error } = await jsonBody<OpenAIError>(res);
    expect(error.type).toBe("invalid_request_error");
    expect(error.param).toBe("response_format.json_schema.schema");
    expect(error.message).toContain(words);
    expect(performance.now() - started).toBeLessThan(5000);
    expect(g.stub.received.length).toBe(before);
  },
  30_000,
);

test("a tool's parameters have the same limits", async () => {
  const res = await chat(g, {
    tools: [
      {
        type: "function",
        function: { name: "pick", parameters: { type: "object", properties: { x: { enum: enumOf(2000) } } } },
      },
    ],
  });
  expect(res.status).toBe(400);
  expect((await jsonBody<OpenAIError>(res)).error.param).toBe("tools.0.function.parameters");
});

test("a schema within the limits goes through", async () => {
  expect(schemaSizeProblem({ enum: enumOf(schemaLimits.enumValues) })).toBeUndefined();
  expect(schemaSizeProblem(nested(schemaLimits.depth))).toBeUndefined();
  expect(schemaSizeProblem(wide(schemaLimits.properties))).toBeUndefined();
  const res = await chat(
    g,
    withSchema({ type: "object", properties: { colour: { enum: ["red", "blue"] } } }),
  );
  expect(res.status).toBe(200);
});
