// JSON Schema → what the model may write, and the check of what it wrote. Two halves:
// - the grammar: schema-to-gbnf.ts (a port of llama.cpp's converter) turns the schema into GBNF, which enforces
//   types, properties, required, enum/const, anyOf/oneOf, $ref, array and string lengths, integer bounds, patterns
//   and common formats while the model samples;
// - the check: ajv validates the finished answer against the whole schema, for what a grammar cannot say
//   (multipleOf, uniqueItems, not, a number's fraction beyond its bound...). An answer that fails it is never
//   returned as valid (the caller retries or answers an error; docs/openai-parameters.md).
// tool_choice "auto" leaves the arguments' grammar to node-llama-cpp's function calling, which reads a subset of
// JSON Schema: toGrammarSchema() rewrites a schema into that subset, leaving out what it cannot read (the check
// after generation still applies the whole schema).

import type { ErrorObject, ValidateFunction } from "ajv";
import Ajv from "ajv";
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import type { GbnfJsonSchema, Llama, LlamaGrammar } from "node-llama-cpp";
import { isObjectLike } from "#core/json.ts";
import { jsonSchemaToGbnf, SchemaGrammarError } from "./schema-to-gbnf.ts";

/** Keywords that only describe (no constraint to enforce). */
const ANNOTATIONS = new Set([
  "title",
  "description",
  "default",
  "examples",
  "$comment",
  "$schema",
  "$id",
  "deprecated",
]);

/** Keywords node-llama-cpp's JSON-schema grammar enforces (utils/gbnfJson/types.d.ts of 3.22.1). */
const ENFORCED_KEYWORDS = [
  "type",
  "const",
  "enum",
  "oneOf",
  "anyOf", // becomes oneOf: the grammar writes one branch, which satisfies anyOf
  "$ref",
  "$defs",
  "definitions", // becomes $defs, as zod-to-json-schema writes it
  "properties",
  "required",
  "additionalProperties",
  "minProperties",
  "maxProperties",
  "items",
  "prefixItems",
  "minItems",
  "maxItems",
  "minLength",
  "maxLength",
  "format",
] as const;
type EnforcedKeyword = (typeof ENFORCED_KEYWORDS)[number];
const ENFORCED: ReadonlySet<string> = new Set(ENFORCED_KEYWORDS);
const isEnforced = (key: string): key is EnforcedKeyword => ENFORCED.has(key);

/** `{}` or `true`: any JSON value. */
const ANY_VALUE = {
  oneOf: [
    { type: ["string", "number", "boolean", "null"] },
    { type: "object", additionalProperties: true },
    { type: "array" },
  ],
} satisfies GbnfJsonSchema;

const FORMATS = new Set(["date-time", "date", "time"]);
const SCALARS = new Set(["string", "number", "integer", "boolean", "null"]);
const TYPES = new Set([...SCALARS, "object", "array"]);

export class UnsupportedSchemaError extends Error {
  constructor(
    /** The keyword, as the caller wrote it (`pattern`, `format: email`). */
    readonly keyword: string,
    /** JSON pointer of the schema node holding it. */
    readonly at: string,
    /** Why, when it is not "the grammar cannot enforce it" (a schema no value satisfies). */
    reason?: string,
  ) {
    super(
      `the JSON schema keyword "${keyword}" (at ${at || "/"}) ` +
        (reason ?? "cannot be enforced by this engine's grammar"),
    );
  }
}

/**
 * Rewrites a schema into what node-llama-cpp's function calling reads (anyOf → oneOf, definitions → $defs, no
 * annotations, no keywords it cannot enforce: those are checked after generation). Throws UnsupportedSchemaError
 * for a shape it would misread (a list of types holding object, a const object), or one that no value could
 * satisfy (an empty enum, minItems above maxItems, a $ref to nothing).
 */
export function toGrammarSchema(schema: unknown): GbnfJsonSchema {
  return convert(schema, "", definitionNames(schema));
}

/** Every name under any `$defs` or `definitions` of the schema, where `$ref`s may point. */
function definitionNames(schema: unknown, names = new Set<string>()): Set<string> {
  if (Array.isArray(schema)) for (const item of schema) definitionNames(item, names);
  else if (isObjectLike(schema)) {
    for (const [key, value] of Object.entries(schema)) {
      if ((key === "$defs" || key === "definitions") && isObjectLike(value))
        for (const name of Object.keys(value)) names.add(name);
      definitionNames(value, names);
    }
  }
  return names;
}

const unsatisfiable = (keyword: string, at: string, why: string) =>
  new UnsupportedSchemaError(keyword, at, `${why}: no value satisfies the schema`);

/** A schema node being rewritten: the keywords kept so far, as node-llama-cpp will read them. */
type ConvertedNode = {
  [K in Exclude<EnforcedKeyword, "anyOf" | "definitions"> | "description"]?: unknown;
};

function convert(schema: unknown, at: string, definitions: Set<string>): GbnfJsonSchema {
  if (schema === true) return ANY_VALUE;
  if (!isObjectLike(schema)) throw new UnsupportedSchemaError(`${String(schema)} as a schema`, at);
  const out: ConvertedNode = {};
  for (const [key, value] of Object.entries(schema)) {
    if (ANNOTATIONS.has(key)) {
      if (key === "description" && typeof value === "string") out.description = value;
      continue;
    }
    // What node-llama-cpp cannot read is left to the check after generation.
    if (isEnforced(key)) convertKeyword(out, key, value, at, definitions);
  }
  checkConverted(out, at);
  return shapeConverted(out);
}

/** One enforced keyword of the node at `at`, written to `out` as node-llama-cpp reads it. */
function convertKeyword(
  out: ConvertedNode,
  key: EnforcedKeyword,
  value: unknown,
  at: string,
  definitions: Set<string>,
): void {
  const child = (s: unknown, here: string) => convert(s, here, definitions);
  const here = `${at}/${key}`;
  switch (key) {
    case "type": {
      const types = Array.isArray(value) ? value : [value];
      const unknown = types.find((t) => typeof t !== "string" || !TYPES.has(t));
      if (unknown !== undefined) throw new UnsupportedSchemaError(`type: ${String(unknown)}`, at);
      // A list of types is a grammar alternative only for scalars.
      if (types.length > 1 && types.some((t) => !SCALARS.has(t)))
        throw new UnsupportedSchemaError(`type: [${types.join(", ")}]`, at);
      out.type = value;
      break;
    }
    case "format":
      if (typeof value === "string" && FORMATS.has(value)) out.format = value;
      break;
    case "$ref": {
      const ref = String(value).replace(/^#\/definitions\//, "#/$defs/");
      if (!ref.startsWith("#/$defs/")) throw new UnsupportedSchemaError(`$ref: ${String(value)}`, at);
      if (!definitions.has(ref.slice("#/$defs/".length)))
        throw new UnsupportedSchemaError(`$ref: ${String(value)}`, at, "points to no definition");
      out.$ref = ref;
      break;
    }
    case "enum":
      if (!Array.isArray(value) || value.length === 0) throw unsatisfiable("enum", at, "it lists no value");
      if (value.some((v) => typeof v === "object" && v !== null))
        throw new UnsupportedSchemaError("enum (with an object or array value)", at);
      out.enum = value;
      break;
    case "const":
      if (typeof value === "object" && value !== null)
        throw new UnsupportedSchemaError("const (an object or array)", at);
      out.const = value;
      break;
    case "anyOf":
    case "oneOf":
      if (Array.isArray(value) && value.length === 0) throw unsatisfiable(key, at, "it lists no schema");
      out.oneOf = listOf(value, key, here).map((s, i) => child(s, `${here}/${i}`));
      break;
    case "prefixItems":
      out[key] = listOf(value, key, here).map((s, i) => child(s, `${here}/${i}`));
      break;
    case "$defs":
    case "definitions":
    case "properties":
      out[key === "definitions" ? "$defs" : key] = Object.fromEntries(
        Object.entries(mapOf(value, key, here)).map(([name, s]) => [name, child(s, `${here}/${name}`)]),
      );
      break;
    case "items":
      out.items = child(value, here);
      break;
    case "additionalProperties":
      out.additionalProperties = typeof value === "boolean" ? value : child(value, here);
      break;
    default:
      // const, enum, required and the numeric bounds pass as written.
      out[key] = value;
  }
}

/** Throws for a converted node the grammar would misread or no value could satisfy. */
function checkConverted(out: ConvertedNode, at: string): void {
  if (out.oneOf && out.type) throw new UnsupportedSchemaError("type beside anyOf/oneOf", at);
  // The grammar writes exactly the listed properties: a required one that is not listed could never appear.
  const listed = isObjectLike(out.properties) ? out.properties : {};
  const missing = Array.isArray(out.required)
    ? out.required.find((name) => !(String(name) in listed))
    : undefined;
  if (missing !== undefined)
    throw new UnsupportedSchemaError(`required: ${String(missing)} (not in properties)`, at);
  for (const [min, max] of [
    ["minItems", "maxItems"],
    ["minLength", "maxLength"],
    ["minProperties", "maxProperties"],
  ] as const) {
    const low = out[min];
    const high = out[max];
    if (typeof low === "number" && typeof high === "number" && low > high)
      throw unsatisfiable(min, at, `${min} ${low} is above ${max} ${high}`);
  }
}

/**
 * node-llama-cpp reads a node without a type as null, and {type: "object"} as the empty object only: give
 * them the meaning JSON Schema gives them.
 */
function shapeConverted(out: ConvertedNode): GbnfJsonSchema {
  const shaped = "type" in out || "const" in out || "enum" in out || "oneOf" in out || "$ref" in out;
  if (!shaped) {
    if ("properties" in out || "additionalProperties" in out || "required" in out) out.type = "object";
    else if ("items" in out || "prefixItems" in out) out.type = "array";
    else if ("minLength" in out || "maxLength" in out || "format" in out) out.type = "string";
    else return { ...ANY_VALUE, ...out } as GbnfJsonSchema;
  }
  if (out.type === "object" && !("properties" in out) && !("additionalProperties" in out))
    out.additionalProperties = true;
  return out as GbnfJsonSchema;
}

/** A schema ready for one request: its grammar, and the check of a finished answer. */
export interface CompiledSchema {
  gbnf: string;
  /** undefined when the value is valid, else why not (ajv's first error, with its path). */
  check(value: unknown): string | undefined;
}

/**
 * The grammar and the validator of a schema as a client sent it. Throws UnsupportedSchemaError when ajv cannot
 * compile the schema (it is not valid JSON Schema) or when no value satisfies it.
 */
export function compileSchema(schema: unknown): CompiledSchema {
  let validate: ValidateFunction;
  try {
    validate = validatorFor(schema);
  } catch (error) {
    const error_ = new UnsupportedSchemaError("schema", "");
    error_.message = `the JSON schema is not valid (ajv: ${errorText(error).replace(/^schema is invalid: /, "")})`;
    throw error_;
  }
  let gbnf: string;
  try {
    gbnf = jsonSchemaToGbnf(schema);
  } catch (error) {
    if (error instanceof SchemaGrammarError)
      throw new UnsupportedSchemaError(error.keyword, error.at, error.why);
    throw error;
  }
  return {
    gbnf,
    check: (value) => (validate(value) ? undefined : describe(validate.errors ?? [])),
  };
}

/** Checks parsed JSON against a schema already compiled by ajv; for tool_choice auto's arguments. */
export function schemaCheck(schema: unknown): (value: unknown) => string | undefined {
  const validate = validatorFor(schema);
  return (value) => (validate(value) ? undefined : describe(validate.errors ?? []));
}

// strict off: annotations and vendor keywords (OpenAI's `strict`, zod's `~standard`) are not errors.
const ajvOptions = { strict: false, allErrors: false, logger: false } as const;
/** One ajv per draft: an instance's first compile (its meta-schemas) costs far more than the next ones. */
const drafts: { draft7?: Ajv; draft2020?: Ajv2020 } = {};
/** Validators of recent schemas by their JSON text: clients send the same schema request after request. */
const recent = new Map<string, ValidateFunction>();
const RECENT_SCHEMAS = 256;

/** Draft 2020-12 (zod 4 writes it) or draft-07 (the default, and what the OpenAI SDK's helpers write). */
function validatorFor(schema: unknown): ValidateFunction {
  const key = JSON.stringify(schema);
  const cached = recent.get(key);
  if (cached) {
    recent.delete(key);
    recent.set(key, cached);
    return cached;
  }
  const draft2020 =
    isObjectLike(schema) && typeof schema.$schema === "string" && /2019-09|2020-12/.test(schema.$schema);
  const ajv = draft2020 ? ajvFor("draft2020") : ajvFor("draft7");
  const { $schema: _, ...rest } = isObjectLike(schema) ? schema : {};
  const body = isObjectLike(schema) ? rest : schema === true || schema === false ? schema : undefined;
  if (body === undefined) throw new Error("schema must be object or boolean"); // as ajv says it
  const validate = ajv.compile(body);
  // The function keeps working; the instance forgets the schema (and any $id, which a later schema may reuse).
  if (isObjectLike(body)) ajv.removeSchema(body);
  recent.set(key, validate);
  const oldest = recent.keys().next();
  if (recent.size > RECENT_SCHEMAS && !oldest.done) recent.delete(oldest.value);
  return validate;
}

function ajvFor(draft: "draft7" | "draft2020"): Ajv {
  const existing = drafts[draft];
  if (existing) return existing;
  const ajv = draft === "draft2020" ? new Ajv2020(ajvOptions) : new Ajv(ajvOptions);
  addFormats(ajv);
  drafts[draft] = ajv;
  return ajv;
}

function describe(errors: ErrorObject[]): string {
  const [first] = errors;
  return first ? `${first.instancePath || "/"} ${first.message ?? "is invalid"}` : "is invalid";
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The GBNF as a node-llama-cpp grammar, for LlamaChat. */
export function createJsonGrammar(llama: Llama, gbnf: string): Promise<LlamaGrammar> {
  return llama.createGrammar({ grammar: gbnf });
}

function listOf(value: unknown, key: string, at: string): unknown[] {
  if (!Array.isArray(value)) throw new UnsupportedSchemaError(`${key} (not a list)`, at);
  return value;
}

function mapOf(value: unknown, key: string, at: string): Record<string, unknown> {
  if (!isObjectLike(value)) throw new UnsupportedSchemaError(`${key} (not an object)`, at);
  return value;
}
