// A validation failure in plain words, from the schema the value broke: "n must be 1",
// "max_tokens must be an integer from 1 to 1000000", "messages must be a non-empty array". TypeBox's
// own messages name a rule without the field ("Expected integer"), and Elysia's summaries list union
// members ("should be one of: 'integer', 'integer'"). Every gateway's validation errors read these.
import { ValueErrorType } from "@sinclair/typebox/errors";

import { isSchemaNode, numberKeyword, type SchemaNode as Schema } from "#core/schema-node.ts";

/** What a TypeBox error carries that matters here (Elysia passes them on as `all`). */
export interface SchemaIssue {
  type?: number;
  schema?: unknown;
  value?: unknown;
}

/** The rule broken, to follow the field's name: "is required", "must be an integer of at least 1". */
export function ruleOf(issue: SchemaIssue): string {
  if (issue.type === ValueErrorType.ObjectRequiredProperty) return "is required";
  if (issue.type === ValueErrorType.ObjectAdditionalProperties) return "is not a known field";
  return isSchemaNode(issue.schema) ? `must be ${describe(issue.schema)}` : "is invalid";
}

/** A noun phrase for what a schema accepts. */
export function describe(schema: Schema): string {
  if ("const" in schema) return JSON.stringify(schema.const);
  if (Array.isArray(schema.enum)) return oneOf(schema.enum.map((v) => JSON.stringify(v)));
  if (Array.isArray(schema.anyOf)) {
    // Elysia's string twins of numbers and booleans (query strings) say nothing to the reader.
    const members = schema.anyOf
      .filter(isSchemaNode)
      .filter((m) => !(m.type === "string" && ["integer", "numeric", "boolean"].some((f) => f === m.format)));
    if (members.length > 0 && members.every((m) => "const" in m))
      return oneOf(members.map((m) => JSON.stringify(m.const)));
    return list(members.map(describe), "or");
  }
  switch (schema.type) {
    case "integer":
      return bounded("an integer", schema);
    case "number":
      return bounded("a number", schema);
    case "boolean":
      return "true or false";
    case "null":
      return "null";
    case "string":
      return text(schema);
    case "array":
      return items(schema);
    case "object":
      return "an object";
  }
  return "valid";
}

function bounded(noun: string, schema: Schema): string {
  const min = numberKeyword(schema.minimum ?? schema.exclusiveMinimum);
  const max = numberKeyword(schema.maximum ?? schema.exclusiveMaximum);
  if (min !== undefined && min === max) return String(min);
  if (min !== undefined && max !== undefined) return `${noun} from ${min} to ${max}`;
  if (min !== undefined) return `${noun} of at least ${min}`;
  if (max !== undefined) return `${noun} of at most ${max}`;
  return noun;
}

function text(schema: Schema): string {
  if (schema.format === "binary") return "a file";
  const min = numberKeyword(schema.minLength);
  const max = numberKeyword(schema.maxLength);
  let phrase = min !== undefined && min > 0 ? "a non-empty string" : "a string";
  if (max !== undefined) phrase += ` of at most ${max} characters`;
  if (typeof schema.format === "string") phrase += ` in ${schema.format} format`;
  if (typeof schema.pattern === "string") phrase += ` matching ${schema.pattern}`;
  return phrase;
}

function items(schema: Schema): string {
  const min = numberKeyword(schema.minItems);
  const max = numberKeyword(schema.maxItems);
  let phrase = min !== undefined && min > 0 ? "a non-empty array" : "an array";
  if (min !== undefined && min > 1) phrase = `an array of at least ${min} items`;
  if (max !== undefined) phrase += ` of at most ${max} items`;
  return phrase;
}

const oneOf = (values: string[]) => {
  const [only, ...others] = values;
  return only !== undefined && others.length === 0 ? only : `one of ${values.join(", ")}`;
};

function list(phrases: string[], joiner: string): string {
  const unique = [...new Set(phrases)];
  if (unique.length <= 1) return unique[0] ?? "valid";
  return `${unique.slice(0, -1).join(", ")} ${joiner} ${unique.at(-1)}`;
}

/** OpenAI names a nested parameter `messages[0].content`; the platform's fields say `messages.0.content`. */
export const paramOf = (field: string): string => field.replace(/\.(\d+)(?=\.|$)/g, "[$1]");
