// JSON Schema → what node-llama-cpp's grammar reads: keywords rewritten to their enforceable form, the rest
// refused by name, and numbers kept finite.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { getLlama, type Llama } from "node-llama-cpp";
import {
  createJsonGrammar,
  toGrammarSchema,
  UnsupportedSchemaError,
} from "#adapters/engines/llama.cpp/json-schema.ts";

let llama: Llama;
beforeAll(async () => {
  llama = await getLlama({ gpu: false, build: "never", maxThreads: 1 });
});
afterAll(() => llama.dispose());

test("anyOf becomes oneOf, definitions become $defs, annotations go, type-less nodes get JSON Schema's meaning", () => {
  expect(
    toGrammarSchema({
      $schema: "http://json-schema.org/draft-07/schema#",
      title: "T",
      properties: {
        a: { anyOf: [{ type: "string" }, { type: "null" }], default: null },
        b: { $ref: "#/definitions/b" },
        c: {},
        d: { type: "object" },
        e: { items: { enum: [1, 2] } },
      },
      definitions: { b: { type: "boolean", description: "kept" } },
    }),
  ).toEqual({
    type: "object",
    properties: {
      a: { oneOf: [{ type: "string" }, { type: "null" }] },
      b: { $ref: "#/$defs/b" },
      c: {
        oneOf: [
          { type: ["string", "number", "boolean", "null"] },
          { type: "object", additionalProperties: true },
          { type: "array" },
        ],
      },
      d: { type: "object", additionalProperties: true },
      e: { type: "array", items: { enum: [1, 2] } },
    },
    $defs: { b: { type: "boolean", description: "kept" } },
  } as never);
});

test("every keyword the grammar cannot enforce is refused with its name and where it is", () => {
  const refused = (schema: unknown) => {
    try {
      toGrammarSchema(schema);
    } catch (error) {
      expect(error).toBeInstanceOf(UnsupportedSchemaError);
      const e = error as UnsupportedSchemaError;
      return `${e.keyword} @ ${e.at}`;
    }
    throw new Error("accepted");
  };
  expect(refused({ type: "integer", minimum: 1 })).toBe("minimum @ ");
  expect(refused({ properties: { id: { type: "string", pattern: "^a" } } })).toBe("pattern @ /properties/id");
  expect(refused({ type: "array", items: { type: "string", format: "uuid" } })).toBe("format: uuid @ /items");
  expect(refused({ allOf: [{ type: "string" }] })).toBe("allOf @ ");
  expect(refused({ $ref: "https://example.com/s.json" })).toBe("$ref: https://example.com/s.json @ ");
  expect(refused({ type: ["object", "null"] })).toBe("type: [object, null] @ ");
  expect(refused({ const: { a: 1 } })).toBe("const (an object or array) @ ");
  expect(refused({ type: "object", properties: { a: { type: "null" } }, required: ["a", "b"] })).toBe(
    "required: b (not in properties) @ ",
  );
});

test("a schema no value satisfies is refused too, not turned into a grammar that writes broken JSON", () => {
  const message = (schema: unknown) => {
    try {
      toGrammarSchema(schema);
    } catch (error) {
      return (error as Error).message;
    }
    throw new Error("accepted");
  };
  expect(message({ properties: { v: { enum: [] } } })).toContain(
    '"enum" (at /properties/v) it lists no value',
  );
  expect(message({ oneOf: [] })).toContain('"oneOf" (at /) it lists no schema');
  expect(message({ type: "array", minItems: 3, maxItems: 1 })).toContain("minItems 3 is above maxItems 1");
  expect(message({ properties: { a: { $ref: "#/$defs/nope" } } })).toContain("points to no definition");
  // A reference to a definition that exists, wherever it is declared, is fine.
  expect(() =>
    toGrammarSchema({ properties: { a: { $ref: "#/$defs/x" } }, $defs: { x: { type: "null" } } }),
  ).not.toThrow();
});

test("numbers keep an exponent of at most two digits, so they never parse as Infinity", async () => {
  const grammar = await createJsonGrammar(
    llama,
    toGrammarSchema({ type: "object", properties: { n: { type: "number" } } }),
  );
  expect(grammar.grammar).toContain("[eE] [-+]? [0-9]{1,2}");
  expect(grammar.grammar).not.toContain("[0-9]{0,15}))?");
});
