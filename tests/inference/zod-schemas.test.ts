// JSON schemas as clients write them: twenty zod schemas modelled on the AI SDK's and the OpenAI SDK's
// documentation examples, turned into JSON Schema the way each SDK does (the AI SDK's zodSchema(), the OpenAI
// SDK's zodResponseFormat()), sent as response_format through the inference gateway to the tiny random-weight
// model on llama.cpp, three seeds each. Every answer must validate, with ajv, against the schema the SDK sent.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { zodSchema } from "ai";
import Ajv, { type ValidateFunction } from "ajv";
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import OpenAI from "openai";
import { zodResponseFormat } from "openai/helpers/zod";
import { z } from "zod";
import { startTinyDeployment, type TinyDeployment } from "./tiny-deployment.ts";

let tiny: TinyDeployment;
let client: OpenAI;

beforeAll(async () => {
  tiny = await startTinyDeployment("tiny-zod");
  client = new OpenAI({ baseURL: tiny.baseUrl, apiKey: tiny.apiKey, maxRetries: 0 });
}, 90_000);
afterAll(() => tiny?.close(), 60_000);

/** As the AI SDK writes them (generateObject, Output.object, tool inputs): zodSchema(...).jsonSchema. */
const aiSdk: [string, z.ZodType][] = [
  [
    "recipe (generateObject)",
    z.object({
      recipe: z.object({
        name: z.string(),
        ingredients: z.array(z.object({ name: z.string(), amount: z.string() })).max(4),
        steps: z.array(z.string()).max(3),
      }),
    }),
  ],
  [
    "movie genre (enum output)",
    z.object({ genre: z.enum(["action", "comedy", "drama", "horror", "sci-fi"]) }),
  ],
  [
    "notifications",
    z.object({
      notifications: z
        .array(
          z.object({
            name: z.string().describe("Name of a fictional person."),
            message: z.string().describe("Message. Do not use emojis or links."),
            minutesAgo: z.number().int().min(0).max(600),
          }),
        )
        .min(1)
        .max(3),
    }),
  ],
  [
    "weather tool input",
    z.object({
      location: z.string().describe("The location to get the weather for"),
      unit: z.enum(["C", "F"]).optional(),
    }),
  ],
  [
    "age and rating, bounded integers",
    z.object({ age: z.number().int().min(0).max(120), rating: z.number().int().min(1).max(5) }),
  ],
  ["sign-up with an e-mail", z.object({ name: z.string().min(1).max(16), email: z.email() })],
  ["event on a date and time", z.object({ event: z.string(), date: z.iso.date(), time: z.iso.time() })],
  ["record with a date-time and a uuid", z.object({ id: z.uuid(), createdAt: z.iso.datetime() })],
  [
    "regexes",
    z.object({ sku: z.string().regex(/^[A-Z]{3}-\d{4}$/), zip: z.string().regex(/^\d{5}(-\d{4})?$/) }),
  ],
  ["tags, a bounded array", z.object({ tags: z.array(z.string().min(1).max(10)).min(1).max(3) })],
  [
    "contact, a discriminated union",
    z.object({
      contact: z.discriminatedUnion("type", [
        z.object({ type: z.literal("email"), email: z.email() }),
        z.object({ type: z.literal("phone"), phone: z.string().regex(/^\+\d{7,12}$/) }),
      ]),
    }),
  ],
  [
    "user with a nested optional address",
    z.object({
      user: z.object({
        name: z.string(),
        address: z.object({ street: z.string(), city: z.string(), zip: z.string().optional() }).optional(),
      }),
    }),
  ],
  ["links and addresses", z.object({ homepage: z.url(), server: z.ipv4(), v6: z.ipv6() })],
  [
    "prices, bounded numbers",
    z.object({
      price: z.number().positive().max(10_000),
      discount: z.number().min(0).max(1),
      celsius: z.number().min(-50).max(60),
    }),
  ],
];

/** As the OpenAI SDK writes them (chat.completions.parse): zodResponseFormat(...), strict, every field required. */
const openAiSdk: [string, z.ZodType][] = [
  [
    "calendar event",
    z.object({
      name: z.string(),
      date: z.iso.date(),
      participants: z.array(z.string()).max(3),
    }),
  ],
  [
    "math reasoning",
    z.object({
      steps: z.array(z.object({ explanation: z.string(), output: z.string() })).max(3),
      final_answer: z.string(),
    }),
  ],
  [
    "research paper extraction",
    z.object({
      title: z.string(),
      authors: z.array(z.string()).min(1).max(3),
      abstract: z.string(),
      keywords: z.array(z.string()).max(4),
    }),
  ],
  [
    "content compliance, nullable fields",
    z.object({
      is_violating: z.boolean(),
      category: z.enum(["violence", "sexual", "self_harm"]).nullable(),
      explanation_if_violating: z.string().nullable(),
    }),
  ],
  [
    "answer with confidence and sources",
    z.object({
      answer: z.string(),
      confidence: z.number().min(0).max(1),
      sources: z.array(z.url()).max(3).nullable(),
    }),
  ],
  [
    "UI component, a union of shapes",
    z.object({
      component: z.union([
        z.object({ kind: z.literal("button"), label: z.string(), disabled: z.boolean() }),
        z.object({
          kind: z.literal("input"),
          placeholder: z.string(),
          maxLength: z.number().int().min(1).max(80),
        }),
      ]),
    }),
  ],
];

/** An independent validator of the schema exactly as sent (draft-07 or 2020-12, by its $schema). */
function validatorOf(schema: Record<string, unknown>): ValidateFunction {
  const draft2020 = String(schema.$schema ?? "").includes("2020-12");
  const ajv = draft2020 ? new Ajv2020({ strict: false }) : new Ajv({ strict: false });
  addFormats(ajv);
  const { $schema: _, ...rest } = schema;
  return ajv.compile(rest);
}

const cases: { name: string; format: OpenAI.ResponseFormatJSONSchema }[] = [
  ...aiSdk.map(([name, schema]) => ({
    name: `AI SDK: ${name}`,
    format: {
      type: "json_schema" as const,
      // What @ai-sdk/openai-compatible sends with structuredOutputs on.
      json_schema: {
        name: "response",
        schema: zodSchema(schema).jsonSchema as Record<string, unknown>,
        strict: true,
      },
    },
  })),
  ...openAiSdk.map(([name, schema]) => ({
    name: `OpenAI SDK: ${name}`,
    format: zodResponseFormat(schema, name.replaceAll(/[^a-z]+/g, "_")) as OpenAI.ResponseFormatJSONSchema,
  })),
];

test("twenty schemas from the SDKs' examples", () => {
  expect(cases).toHaveLength(20);
});

for (const { name, format } of cases) {
  test(`${name}: three seeds, each answer valid against the schema the SDK sent`, async () => {
    const schema = format.json_schema.schema ?? {};
    const validate = validatorOf(schema);
    for (const seed of [1, 2, 3]) {
      const res = await client.chat.completions.create({
        model: "tiny-zod",
        messages: [{ role: "user", content: "Fill in the form." }],
        response_format: format,
        max_tokens: 1500,
        seed,
      });
      const choice = res.choices[0];
      expect(choice?.finish_reason).toBe("stop");
      const value = JSON.parse(choice?.message.content ?? "");
      expect({ seed, errors: validate(value) ? [] : validate.errors }).toEqual({ seed, errors: [] });
    }
  }, 60_000);
}

test("through the gateway, an answer that fails the check is an error, never a 200", async () => {
  // The grammar writes 1 to 9 and `not` refuses each: the worker's three attempts fail (500
  // invalid_structured_output), which the gateway relays as a failed replica.
  const schema = { type: "integer", minimum: 1, maximum: 9, not: { minimum: 1 } };
  const err = await client.chat.completions
    .create({
      model: "tiny-zod",
      messages: [{ role: "user", content: "A number." }],
      response_format: { type: "json_schema", json_schema: { name: "n", schema } },
      seed: 1,
    })
    .catch((e: unknown) => e);
  expect(err).toBeInstanceOf(OpenAI.APIError);
  expect((err as InstanceType<typeof OpenAI.APIError>).status).toBe(502);
  expect((err as InstanceType<typeof OpenAI.APIError>).code).toBe("upstream_error");
});
