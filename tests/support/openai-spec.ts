// OpenAI's published OpenAPI document (pinned in tests/specs/, see its README) as ajv validators: for an
// operation (`POST /responses`) the schema the document gives its 200 answer, JSON or one streamed
// event, and `ErrorResponse` for errors. The document is OpenAPI 3.1 (JSON Schema 2020-12) with a few
// older forms inside, turned into what they mean before ajv sees them:
// - `nullable: true` (OpenAPI 3.0): the schema or null;
// - `$recursiveRef: "#"` (2019-09, in CompoundFilter): a reference to the component that holds it;
// - `discriminator` beside a `oneOf` of references: the value of the named property picks the schema
//   (OpenAPI's meaning), so an answer is checked against the one branch it claims to be, and its errors
//   name that branch's rules instead of thirty branches' worth of "wrong type".
// Formats the document names (`unixtime`, `int64`, `double`…) are checked for what they say of a JSON value.
import { join } from "node:path";
import Ajv2020, { type ErrorObject, type ValidateFunction } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";

const specPath = join(import.meta.dir, "..", "specs", "openai-openapi.yaml");
const base = "https://openai.test/openapi";

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

interface MediaType {
  schema?: JsonObject;
}
interface Operation {
  responses?: Record<string, { content?: Record<string, MediaType> }>;
}
interface Document {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Json> };
}

const isObject = (value: Json | undefined): value is JsonObject =>
  typeof value === "object" && value !== null && !Array.isArray(value);

type Components = Record<string, Json>;

/** One component schema with the document's older forms rewritten (see the file's head). */
function toJsonSchema(schema: Json, component: string, components: Components): Json {
  if (Array.isArray(schema)) return schema.map((item) => toJsonSchema(item, component, components));
  if (!isObject(schema)) return schema;
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === "$recursiveAnchor" || key === "nullable" || key === "discriminator") continue;
    if (key === "$recursiveRef") {
      out.$ref = `#/components/schemas/${component}`;
      continue;
    }
    // Property names are data, not keywords: a property called "nullable" stays.
    out[key] =
      key === "properties" && isObject(value)
        ? mapValues(value, component, components)
        : toJsonSchema(value, component, components);
  }
  const picked = discriminated(schema, out, components);
  return schema.nullable === true ? nullable(picked) : picked;
}

/**
 * A `oneOf` or `anyOf` of references whose branches each name the values of one tag property (the
 * `discriminator`'s, else `type`) as "the branches whose tag values hold the data's tag": the same
 * verdict, since no other branch can match, but errors from the branch the data claims to be rather than
 * from every branch. Data without the tag, or a branch whose tag values cannot be read, keep the original.
 */
function discriminated(original: JsonObject, schema: JsonObject, components: Components): JsonObject {
  const explicit = isObject(original.discriminator) ? original.discriminator.propertyName : undefined;
  const tag = typeof explicit === "string" ? explicit : "type";
  const combinator = Array.isArray(schema.oneOf)
    ? "oneOf"
    : Array.isArray(schema.anyOf)
      ? "anyOf"
      : undefined;
  const branches = combinator ? schema[combinator] : undefined;
  if (!combinator || !Array.isArray(branches)) return schema;
  const byValue = new Map<string, Json[]>();
  for (const branch of branches) {
    const ref = isObject(branch) ? branch.$ref : undefined;
    const values = typeof ref === "string" ? tagValues(ref, tag, components) : undefined;
    if (!values) return schema;
    for (const value of values) byValue.set(value, [...(byValue.get(value) ?? []), branch]);
  }
  const { [combinator]: _, ...rest } = schema;
  return {
    ...rest,
    if: { type: "object", required: [tag] },
    // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then keywords, never awaited
    then: {
      properties: { [tag]: { enum: [...byValue.keys()] } },
      allOf: [...byValue].map(([value, same]) => ({
        if: { properties: { [tag]: { const: value } } },
        // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then keywords, never awaited
        then: same.length === 1 && same[0] !== undefined ? same[0] : { [combinator]: same },
      })),
    },
    else: { [combinator]: branches },
  };
}

/** The values a component allows its tag property (its `enum` or `const`, or its `allOf` members'). */
function tagValues(ref: string, tag: string, components: Components): string[] | undefined {
  const schema = components[ref.replace("#/components/schemas/", "")];
  return isObject(schema) ? ownTagValues(schema, tag, components) : undefined;
}

function ownTagValues(schema: JsonObject, tag: string, components: Components): string[] | undefined {
  const property = isObject(schema.properties) ? schema.properties[tag] : undefined;
  if (isObject(property)) {
    const values = Array.isArray(property.enum) ? property.enum : [property.const ?? null];
    const strings = values.filter((v): v is string => typeof v === "string");
    return strings.length === values.length ? strings : undefined;
  }
  for (const member of Array.isArray(schema.allOf) ? schema.allOf : []) {
    if (!isObject(member)) continue;
    const values =
      typeof member.$ref === "string"
        ? tagValues(member.$ref, tag, components)
        : ownTagValues(member, tag, components);
    if (values) return values;
  }
  return undefined;
}

const mapValues = (properties: JsonObject, component: string, components: Components): JsonObject =>
  Object.fromEntries(
    Object.entries(properties).map(([name, s]) => [name, toJsonSchema(s, component, components)]),
  );

function nullable(schema: JsonObject): Json {
  if (typeof schema.type === "string") {
    const widened: JsonObject = { ...schema, type: [schema.type, "null"] };
    if (Array.isArray(schema.enum)) widened.enum = [...schema.enum, null];
    return widened;
  }
  return { anyOf: [schema, { type: "null" }] };
}

export interface OpenAiSpec {
  /** Problems of `body` as the JSON answer (status 200) of `operation`, e.g. "POST /chat/completions". */
  answer(operation: string, body: unknown): string[];
  /** Problems of one streamed event of `operation` (its `text/event-stream` schema, else its JSON one). */
  event(operation: string, event: unknown): string[];
  /** Problems of an error body (`ErrorResponse`). */
  error(body: unknown): string[];
  /** Problems of `value` as the component schema `name`. */
  component(name: string, value: unknown): string[];
  /** Compiles the schemas of these operations now (a second or two each for the large ones). */
  prepare(operations: string[]): void;
}

let loaded: OpenAiSpec | undefined;

export async function openAiSpec(): Promise<OpenAiSpec> {
  if (loaded) return loaded;
  const document = Bun.YAML.parse(await Bun.file(specPath).text()) as Document;
  const schemas = Object.fromEntries(
    Object.entries(document.components.schemas).map(([name, s]) => [
      name,
      toJsonSchema(s, name, document.components.schemas),
    ]),
  );
  // strict: false, because the document carries its own annotations (x-oaiMeta, example, …).
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addFormat("unixtime", { type: "number", validate: (n: number) => Number.isInteger(n) && n >= 0 });
  ajv.addFormat("int64", { type: "number", validate: Number.isSafeInteger });
  ajv.addFormat("double", { type: "number", validate: Number.isFinite });
  ajv.addFormat("float", { type: "number", validate: Number.isFinite });
  ajv.addFormat("binary", true);
  ajv.addSchema({ $id: base, components: { schemas } });

  const compiled = new Map<string, ValidateFunction>();
  const validator = (ref: string): ValidateFunction => {
    const known = compiled.get(ref);
    if (known) return known;
    const validate = ajv.getSchema(`${base}${ref}`);
    if (!validate) throw new Error(`the document has no schema ${ref}`);
    compiled.set(ref, validate);
    return validate;
  };
  const problems = (ref: string, value: unknown): string[] => {
    const validate = validator(ref);
    return validate(value) ? [] : describe(ref, validate.errors ?? [], value);
  };
  const schemaRef = (operation: string, mediaType: "application/json" | "text/event-stream"): string => {
    const [method = "", path = ""] = operation.split(" ");
    const ok = document.paths[path]?.[method.toLowerCase()]?.responses?.["200"];
    if (!ok?.content) throw new Error(`the document gives no 200 answer of ${operation}`);
    const media = ok.content[mediaType] ?? ok.content["application/json"];
    const ref = media?.schema?.$ref;
    if (typeof ref !== "string") throw new Error(`the 200 answer of ${operation} names no schema`);
    return ref;
  };
  loaded = {
    answer: (operation, body) => problems(schemaRef(operation, "application/json"), body),
    event: (operation, event) => problems(schemaRef(operation, "text/event-stream"), event),
    error: (body) => problems("#/components/schemas/ErrorResponse", body),
    component: (name, value) => problems(`#/components/schemas/${name}`, value),
    prepare(operations) {
      validator("#/components/schemas/ErrorResponse");
      for (const operation of operations) {
        validator(schemaRef(operation, "application/json"));
        validator(schemaRef(operation, "text/event-stream"));
      }
    },
  };
  return loaded;
}

/** ajv's errors without the ones that only say a combinator failed (its branches' errors say why). */
function describe(ref: string, errors: ErrorObject[], value: unknown): string[] {
  const combinators = new Set(["if", "oneOf", "anyOf", "allOf"]);
  const telling = errors.filter((e) => !combinators.has(e.keyword));
  return (telling.length > 0 ? telling : errors)
    .slice(0, 12)
    .map(
      (e) =>
        `${ref} ${e.instancePath || "/"} ${e.message ?? e.keyword} ${JSON.stringify(e.params)} (value ${JSON.stringify(at(value, e.instancePath))?.slice(0, 200)})`,
    );
}

function at(value: unknown, pointer: string): unknown {
  let here = value;
  for (const raw of pointer.split("/").slice(1)) {
    const key = raw.replaceAll("~1", "/").replaceAll("~0", "~");
    if (typeof here !== "object" || here === null) return undefined;
    here = Reflect.get(here, key);
  }
  return here;
}
