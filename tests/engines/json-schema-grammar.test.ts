// JSON Schema → GBNF (schema-to-gbnf.ts), keyword by keyword: each grammar is loaded into llama.cpp through
// node-llama-cpp and matched against strings by llama.cpp's own grammar engine, so "accepts" and "rejects" are
// what the sampler would allow. Then the check after generation (compileSchema) and the subset that tool_choice
// "auto" hands to node-llama-cpp (toGrammarSchema).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { getLlama, type Llama, type LlamaGrammar } from "node-llama-cpp";
import {
  compileSchema,
  createJsonGrammar,
  toGrammarSchema,
  UnsupportedSchemaError,
} from "#adapters/engines/llama.cpp/json-schema.ts";
import {
  FREE_STRING_LENGTH,
  jsonSchemaToGbnf,
  OPEN_REPETITION,
} from "#adapters/engines/llama.cpp/schema-to-gbnf.ts";

let llama: Llama;
beforeAll(async () => {
  llama = await getLlama({ gpu: false, build: "never", maxThreads: 1 });
});
afterAll(() => llama.dispose());

/**
 * llama.cpp's matcher for a whole text (the native grammar's isTextCompatible: every code point accepted and the
 * grammar complete). node-llama-cpp keeps it on the grammar's native object, which its types do not export.
 */
interface NativeGrammar {
  _grammar: { isTextCompatible(text: string): boolean };
}
const matcher = (grammar: LlamaGrammar) => (grammar as unknown as NativeGrammar)._grammar;

async function sentences(schema: unknown, texts: string[]): Promise<Record<string, boolean>> {
  const grammar = await createJsonGrammar(llama, jsonSchemaToGbnf(schema));
  const native = matcher(grammar);
  return Object.fromEntries(texts.map((t) => [t, native.isTextCompatible(t)]));
}

/** Expects the grammar of `schema` to accept each of `valid` and reject each of `invalid`. */
async function expectGrammar(schema: unknown, valid: string[], invalid: string[]) {
  const seen = await sentences(schema, [...valid, ...invalid]);
  expect(seen).toEqual(
    Object.fromEntries([...valid.map((t) => [t, true]), ...invalid.map((t) => [t, false])]),
  );
}

describe("the grammar enforces", () => {
  test("integer minimum and maximum", () =>
    expectGrammar(
      { type: "integer", minimum: -5, maximum: 120 },
      ["-5", "0", "7", "120", "99"],
      ["-6", "121", "1000", "1.5", "007"],
    ));

  test("integer exclusiveMinimum and exclusiveMaximum (draft 6+ numbers and draft 4 booleans)", async () => {
    await expectGrammar(
      { type: "integer", exclusiveMinimum: 0, exclusiveMaximum: 10 },
      ["1", "9"],
      ["0", "10"],
    );
    await expectGrammar({ type: "integer", minimum: 0, exclusiveMinimum: true }, ["1", "42"], ["0", "-1"]);
    // One-sided bounds.
    await expectGrammar(
      { type: "integer", minimum: 18 },
      ["18", "19", "20", "100", "9999"],
      ["17", "9", "-18"],
    );
    await expectGrammar({ type: "integer", maximum: -3 }, ["-3", "-40"], ["-2", "0", "5"]);
  });

  test("number bounds: the sign and the integral part, zero excluded for exclusiveMinimum 0; no exponent", async () => {
    await expectGrammar(
      { type: "number", exclusiveMinimum: 0 },
      ["0.5", "1", "12.25", "0.001"],
      ["0", "0.0", "-1", "1e5"],
    );
    await expectGrammar(
      { type: "number", minimum: -2.5, maximum: 3 },
      ["-2.5", "-1", "0", "3", "2.75"],
      ["-3", "4", "-10"],
    );
    await expectGrammar({ type: "number", exclusiveMaximum: 0 }, ["-0.5", "-3"], ["0", "1"]);
  });

  test("numbers without bounds: at most two exponent digits, so none parses as Infinity", () =>
    expectGrammar({ type: "number" }, ["1", "-2.5", "3e10", "1E-99"], ["7870e493680", "1e100"]));

  test("minLength and maxLength; a free string is bounded", async () => {
    await expectGrammar(
      { type: "string", minLength: 2, maxLength: 4 },
      ['"ab"', '"abcd"', '"a\\"b"'],
      ['"a"', '"abcde"'],
    );
    await expectGrammar(
      { type: "string" },
      ['""', `"${"x".repeat(FREE_STRING_LENGTH)}"`],
      [`"${"x".repeat(FREE_STRING_LENGTH + 1)}"`, '"a"b"'],
    );
  });

  test("pattern: classes, groups, alternation, counted and open repetition, escapes, \\d \\w \\s", async () => {
    await expectGrammar(
      { type: "string", pattern: "^[A-Z]{3}-\\d{2}$" },
      ['"ABC-12"'],
      ['"AB-12"', '"abc-12"'],
    );
    await expectGrammar(
      { type: "string", pattern: "^(?:cat|dog)s?\\.\\w+$" },
      ['"cats.x_1"', '"dog.a"'],
      ['"cow.a"', '"cats."'],
    );
    // `+` is bounded, so random weights finish; the bound still matches the pattern.
    await expectGrammar(
      { type: "string", pattern: "^a+$" },
      [`"${"a".repeat(OPEN_REPETITION + 1)}"`],
      [`"${"a".repeat(OPEN_REPETITION + 2)}"`, '""'],
    );
    // The dot and negated classes never write a raw quote or backslash, which would end the JSON string.
    await expectGrammar({ type: "string", pattern: "^[^x]\\S.$" }, ['"abc"'], ['"a"c"', '"xbc"', '"a c"']);
    // zod's own date pattern (leap years) converts.
    await expectGrammar(
      {
        type: "string",
        pattern:
          "^(?:(?:\\d\\d[2468][048]|\\d\\d[13579][26]|\\d\\d0[48]|[02468][048]00|[13579][26]00)-02-29|\\d{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\\d|30)|(?:02)-(?:0[1-9]|1\\d|2[0-8])))$",
      },
      ['"2024-02-29"', '"2023-12-31"'],
      ['"2023-02-29"', '"2023-04-31"'],
    );
  });

  test("a pattern the grammar cannot read (a lookahead) becomes a bounded string, left to the check", () =>
    expectGrammar({ type: "string", pattern: "^(?!x)a$" }, ['"a"', '"x"'], ['"a"b"']));

  test("formats: date, time, date-time, uuid, email, uri, ipv4, ipv6", async () => {
    await expectGrammar(
      { type: "string", format: "date" },
      ['"2024-02-28"', '"1999-12-31"'],
      ['"2024-02-30"', '"2024-13-01"', '"24-01-01"'],
    );
    await expectGrammar(
      { type: "string", format: "time" },
      ['"23:59:59Z"', '"00:00:00.123Z"'],
      ['"24:00:00Z"'],
    );
    await expectGrammar(
      { type: "string", format: "date-time" },
      ['"2024-01-02T03:04:05Z"'],
      ['"2024-01-02 03:04:05"'],
    );
    await expectGrammar(
      { type: "string", format: "uuid" },
      ['"123e4567-e89b-42d3-a456-426614174000"'],
      ['"123e4567-e89b-12d3"'],
    );
    await expectGrammar(
      { type: "string", format: "email" },
      ['"a@b.co"', '"x.y+z@mail.example.org"'],
      ['"a@b"', '"@b.co"', '"a b@c.de"'],
    );
    await expectGrammar(
      { type: "string", format: "uri" },
      ['"https://example.com/a/b"', '"http://x.io"'],
      ['"example.com"', '"ftp://x.io"'],
    );
    await expectGrammar(
      { type: "string", format: "ipv4" },
      ['"192.168.0.1"', '"255.255.255.255"'],
      ['"256.1.1.1"', '"1.2.3"'],
    );
    await expectGrammar(
      { type: "string", format: "ipv6" },
      ['"2001:db8:0:0:0:0:2:1"'],
      ['"2001:db8::1:2:3:4:5:6:7"'],
    );
  });

  test("minItems and maxItems", () =>
    expectGrammar(
      { type: "array", items: { type: "integer" }, minItems: 1, maxItems: 3 },
      ["[1]", "[1,2,3]"],
      ["[]", "[1,2,3,4]"],
    ));

  test("enum and const, of any JSON value", async () => {
    await expectGrammar(
      { enum: ["a", 1, null, { k: [true] }] },
      ['"a"', "1", "null", '{"k":[true]}'],
      ['"b"', "2"],
    );
    await expectGrammar({ const: "fixed" }, ['"fixed"'], ['"other"']);
  });

  test("anyOf, oneOf and type lists", async () => {
    await expectGrammar({ anyOf: [{ type: "integer" }, { type: "null" }] }, ["3", "null"], ['"3"']);
    await expectGrammar({ oneOf: [{ const: 1 }, { type: "string", maxLength: 1 }] }, ["1", '"x"'], ["2"]);
    await expectGrammar({ type: ["boolean", "null"] }, ["true", "null"], ["0"]);
  });

  test("$ref into $defs and definitions, and recursion through #", async () => {
    await expectGrammar(
      {
        type: "object",
        properties: { a: { $ref: "#/$defs/x" }, b: { $ref: "#/definitions/y" } },
        required: ["a", "b"],
        $defs: { x: { enum: [1] } },
        definitions: { y: { type: "boolean" } },
      },
      ['{"a":1,"b":true}'],
      ['{"a":2,"b":true}'],
    );
    await expectGrammar(
      {
        type: "object",
        properties: {
          v: { type: "integer", maximum: 9, minimum: 0 },
          next: { anyOf: [{ $ref: "#" }, { type: "null" }] },
        },
        required: ["v", "next"],
        additionalProperties: false,
      },
      ['{"v":1,"next":{"v":2,"next":null}}'],
      ['{"v":1,"next":{"v":2}}'],
    );
  });

  test("required, optional and nested properties; additionalProperties false and schemas", async () => {
    const person = {
      type: "object",
      properties: {
        name: { type: "string", maxLength: 5 },
        age: { type: "integer", minimum: 0, maximum: 150 },
        address: {
          type: "object",
          properties: {
            city: { type: "string", maxLength: 5 },
            zip: { type: "string", pattern: "^\\d{5}$" },
          },
          required: ["city"],
          additionalProperties: false,
        },
      },
      required: ["name"],
      additionalProperties: false,
    };
    await expectGrammar(
      person,
      ['{"name":"Al"}', '{"name":"Al","age":3}', '{"name":"Al","address":{"city":"Oslo","zip":"12345"}}'],
      [
        '{"age":3}',
        '{"name":"Al","extra":1}',
        '{"name":"Al","address":{"zip":"12345"}}',
        '{"name":"Al","age":151}',
      ],
    );
    await expectGrammar(
      { type: "object", properties: { a: { type: "integer" } }, additionalProperties: { type: "boolean" } },
      ['{"a":1,"b":true}', '{"c":false}'],
      ['{"b":1}', '{"a":true}'],
    );
  });
});

describe("schemas no value satisfies are refused before any generation", () => {
  const refusal = (schema: unknown) => {
    try {
      compileSchema(schema);
    } catch (error) {
      expect(error).toBeInstanceOf(UnsupportedSchemaError);
      const e = error as UnsupportedSchemaError;
      return `${e.keyword} @ ${e.at}: ${e.message}`;
    }
    throw new Error("accepted");
  };

  test("empty enums and unions, crossed bounds, references to nothing, invalid schemas", () => {
    expect(refusal({ properties: { v: { enum: [] } } })).toContain(
      "/properties/v/enum must NOT have fewer than 1",
    );
    expect(refusal({ oneOf: [] })).toContain("/oneOf must NOT have fewer than 1");
    expect(refusal({ type: "array", minItems: 3, maxItems: 1 })).toContain("3 is above maxItems 1");
    expect(refusal({ type: "integer", minimum: 5, maximum: 4 })).toContain("no integer lies between");
    expect(refusal({ properties: { a: { $ref: "#/$defs/nope" } }, $defs: {} })).toContain(
      "the JSON schema is not valid",
    );
    expect(refusal({ $ref: "https://example.com/s.json" })).toContain("the JSON schema is not valid");
    expect(refusal({ type: "string", minLength: "two" })).toContain("the JSON schema is not valid");
  });
});

describe("the check after generation", () => {
  test("applies the whole schema: what the grammar cannot say, and formats", () => {
    const { check } = compileSchema({
      $schema: "https://json-schema.org/draft/2020-12/schema",
      type: "object",
      properties: {
        n: { type: "number", maximum: 2.5, multipleOf: 0.5 },
        tags: { type: "array", uniqueItems: true },
        e: { type: "string", format: "email" },
      },
    });
    expect(check({ n: 2, tags: [1, 2], e: "a@b.co" })).toBeUndefined();
    expect(check({ n: 2.9 })).toContain("/n must be <= 2.5");
    expect(check({ n: 0.7 })).toContain("/n must be multiple of 0.5");
    expect(check({ tags: [1, 1] })).toContain("/tags");
    expect(check({ e: "nope" })).toContain('/e must match format "email"');
  });

  test("reads draft-07 schemas (definitions, as the OpenAI SDK's helpers and zod-to-json-schema write)", () => {
    const { check } = compileSchema({
      $schema: "http://json-schema.org/draft-07/schema#",
      type: "object",
      properties: { a: { $ref: "#/definitions/a" } },
      definitions: { a: { type: "integer", exclusiveMinimum: 0 } },
    });
    expect(check({ a: 1 })).toBeUndefined();
    expect(check({ a: 0 })).toContain("/a must be > 0");
  });
});

describe("tool_choice auto: the subset node-llama-cpp's function calling reads", () => {
  test("anyOf becomes oneOf, definitions become $defs, annotations and keywords it cannot read go", () => {
    expect(
      toGrammarSchema({
        $schema: "http://json-schema.org/draft-07/schema#",
        title: "T",
        properties: {
          a: { anyOf: [{ type: "string" }, { type: "null" }], default: null },
          b: { $ref: "#/definitions/b" },
          n: { type: "integer", minimum: 1, maximum: 5 },
          s: { type: "string", pattern: "^a$", format: "email" },
        },
        definitions: { b: { type: "boolean", description: "kept" } },
      }),
    ).toEqual({
      type: "object",
      properties: {
        a: { oneOf: [{ type: "string" }, { type: "null" }] },
        b: { $ref: "#/$defs/b" },
        n: { type: "integer" },
        s: { type: "string" },
      },
      $defs: { b: { type: "boolean", description: "kept" } },
    } as never);
  });
});
