// JSON Schema → GBNF, the grammar language of llama.cpp: a port to TypeScript of llama.cpp's own converter
// (common/json-schema-to-grammar.cpp of the llama.cpp that node-llama-cpp 3.22.1 bundles), with these changes:
// - free-form values are bounded so that any model, even one with random weights, finishes its answer: strings
//   without maxLength (FREE_STRING_LENGTH), regex repetitions without an upper bound (OPEN_REPETITION), number
//   exponents (two digits, so a number never parses as Infinity);
// - number bounds (minimum, maximum, exclusive*) bound the integral part and the sign; integer bounds are exact;
// - formats email, uri, ipv4 and ipv6 beside date, time, date-time and uuid, each written as a subset of what both
//   ajv-formats and zod's own patterns accept, so a value the grammar lets through passes either check;
// - a known format wins over a pattern (zod writes both); regex classes \d \w \s are understood; the regex dot and
//   negated classes never write a raw `"` or `\`, which would break the JSON string around them.
// What a grammar cannot express (multipleOf, uniqueItems, not, if/then/else, a pattern it cannot read...) is left
// to the check after generation (structured-output.ts), never silently trusted.
//
// llama.cpp is under the MIT License:
//   Copyright (c) 2023-2026 The ggml authors
//   Permission is hereby granted, free of charge, to any person obtaining a copy of this software and associated
//   documentation files (the "Software"), to deal in the Software without restriction, including without
//   limitation the rights to use, copy, modify, merge, publish, distribute, sublicense, and/or sell copies of the
//   Software, and to permit persons to whom the Software is furnished to do so, subject to the following
//   conditions: The above copyright notice and this permission notice shall be included in all copies or
//   substantial portions of the Software. THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS
//   OR IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY, FITNESS FOR A PARTICULAR PURPOSE
//   AND NONINFRINGEMENT. IN NO EVENT SHALL THE AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR
//   OTHER LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM, OUT OF OR IN CONNECTION
//   WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE SOFTWARE.

/** Characters a string without maxLength may hold under the grammar. */
export const FREE_STRING_LENGTH = 256;
/** Repetitions a regex `*`, `+` or `{m,}` may make under the grammar, beyond its minimum. */
export const OPEN_REPETITION = 32;

/** A schema the converter refuses: no value satisfies it, or it points outside the document. */
export class SchemaGrammarError extends Error {
  constructor(
    /** The keyword, as the caller wrote it. */
    readonly keyword: string,
    /** JSON pointer of the schema node holding it. */
    readonly at: string,
    readonly why: string,
  ) {
    super(`the JSON schema keyword "${keyword}" (at ${at || "/"}) ${why}`);
  }
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Node = { [key: string]: Json };

const SPACE_RULE = '| " " | "\\n"{1,2} [ \\t]{0,20}';

interface BuiltinRule {
  content: string;
  deps: string[];
}

const PRIMITIVE_RULES = {
  boolean: { content: '("true" | "false")', deps: [] },
  "decimal-part": { content: "[0-9]{1,16}", deps: [] },
  "integral-part": { content: "[0] | [1-9] [0-9]{0,15}", deps: [] },
  // Changed: the exponent has at most two digits (llama.cpp: an integral part of up to 16).
  number: {
    content: '("-"? integral-part) ("." decimal-part)? ([eE] [-+]? [0-9]{1,2})?',
    deps: ["integral-part", "decimal-part"],
  },
  integer: { content: '("-"? integral-part)', deps: ["integral-part"] },
  value: {
    content: "object | array | string | number | boolean | null",
    deps: ["object", "array", "string", "number", "boolean", "null"],
  },
  object: {
    content: '"{" space ( string ":" space value ("," space string ":" space value)* )? space "}"',
    deps: ["string", "value"],
  },
  array: { content: '"[" space ( value ("," space value)* )? space "]"', deps: ["value"] },
  char: { content: '[^"\\\\\\x7F\\x00-\\x1F] | [\\\\] (["\\\\bfnrt] | "u" [0-9a-fA-F]{4})', deps: [] },
  // Changed: bounded (llama.cpp: char*).
  string: { content: `"\\"" char{0,${FREE_STRING_LENGTH}} "\\""`, deps: ["char"] },
  null: { content: '"null"', deps: [] },
} satisfies Record<string, BuiltinRule>;
/** The primitive rules by name, for names read from a schema. */
const PRIMITIVE_BY_NAME: ReadonlyMap<string, BuiltinRule> = new Map(Object.entries(PRIMITIVE_RULES));

const HEX = "[0-9a-fA-F]";
const LABEL = "[A-Za-z0-9] ([A-Za-z0-9-]{0,14} [A-Za-z0-9])?";
const OCTET = '("25" [0-5] | "2" [0-4] [0-9] | "1" [0-9] [0-9] | [1-9] [0-9] | [0-9])';

/**
 * Formats, each the JSON string with its quotes. Dates leave out 29 February and days a month lacks, uuids are
 * version 4, times and date-times end in "Z": subsets that ajv-formats (full mode) and zod's patterns accept.
 */
const STRING_FORMAT_RULES: Record<string, BuiltinRule> = {
  date: {
    content:
      '[0-9]{4} "-" ( ("0" [13578] | "1" [02]) "-" ("0" [1-9] | [12] [0-9] | "3" [01]) | ("0" [469] | "11") "-" ("0" [1-9] | [12] [0-9] | "30") | "02" "-" ("0" [1-9] | "1" [0-9] | "2" [0-8]) )',
    deps: [],
  },
  time: {
    content: '([01] [0-9] | "2" [0-3]) ":" [0-5] [0-9] ":" [0-5] [0-9] ( "." [0-9]{3} )? "Z"',
    deps: [],
  },
  "date-time": { content: 'date "T" time', deps: ["date", "time"] },
  "date-string": { content: '"\\"" date "\\""', deps: ["date"] },
  "time-string": { content: '"\\"" time "\\""', deps: ["time"] },
  "date-time-string": { content: '"\\"" date-time "\\""', deps: ["date-time"] },
  "uuid-string": {
    content: `"\\"" ${HEX}{8} "-" ${HEX}{4} "-4" ${HEX}{3} "-" [89ab] ${HEX}{3} "-" ${HEX}{12} "\\""`,
    deps: [],
  },
  "email-string": {
    content: `"\\"" [A-Za-z0-9_+-]{1,16} ("." [A-Za-z0-9_+-]{1,16}){0,2} "@" (${LABEL} "."){1,3} [A-Za-z]{2,6} "\\""`,
    deps: [],
  },
  "uri-string": {
    content: `"\\"" "http" "s"? "://" (${LABEL} "."){1,3} [A-Za-z]{2,6} ("/" [A-Za-z0-9._~-]{1,16}){0,4} "/"? "\\""`,
    deps: [],
  },
  "ipv4-string": { content: `"\\"" ${OCTET} ("." ${OCTET}){3} "\\""`, deps: [] },
  "ipv6-string": { content: `"\\"" ${HEX}{1,4} (":" ${HEX}{1,4}){7} "\\""`, deps: [] },
};

/** The formats the grammar writes; others are checked after generation only. */
export const GRAMMAR_FORMATS = ["date", "time", "date-time", "uuid", "email", "uri", "ipv4", "ipv6"] as const;

const RESERVED_NAMES = new Set(["root", ...PRIMITIVE_BY_NAME.keys(), ...Object.keys(STRING_FORMAT_RULES)]);

const INVALID_RULE_CHARS = /[^a-zA-Z0-9-]+/g;
const LITERAL_ESCAPES: Record<string, string> = { "\r": "\\r", "\n": "\\n", '"': '\\"', "\\": "\\\\" };
const NON_LITERAL = new Set("|.()[]{}*+?^$");
const ESCAPED_IN_REGEXPS_BUT_NOT_IN_LITERALS = new Set("^$.[]()|{}*+?/-");
/** Regex class escapes, as GBNF ranges. */
const CLASS_ESCAPES: Record<string, string> = { d: "0-9", w: "a-zA-Z0-9_", s: " \\t\\n\\r" };
/** What a negated class or the dot must never write inside a JSON string. */
const JSON_UNSAFE = '"\\\\\\x00-\\x1F\\x7F';
const DOT_RULE = `[^${JSON_UNSAFE}]`;

function formatLiteral(literal: string): string {
  return `"${literal.replace(/[\r\n"\\]/g, (c) => LITERAL_ESCAPES[c] ?? c)}"`;
}

function buildRepetition(
  itemRule: string,
  minItems: number,
  maxItems: number | undefined,
  separator = "",
): string {
  if (maxItems === 0) return "";
  if (minItems === 0 && maxItems === 1) return `${itemRule}?`;
  if (separator === "") {
    if (minItems === 1 && maxItems === undefined) return `${itemRule}+`;
    if (minItems === 0 && maxItems === undefined) return `${itemRule}*`;
    return `${itemRule}{${minItems},${maxItems ?? ""}}`;
  }
  const result = `${itemRule} ${buildRepetition(
    `(${separator} ${itemRule})`,
    minItems === 0 ? 0 : minItems - 1,
    maxItems === undefined ? undefined : maxItems - 1,
  )}`;
  return minItems === 0 ? `(${result})?` : result;
}

function digitRange(out: string[], from: string, to: string): void {
  out.push("[", from === to ? from : `${from}-${to}`, "]");
}

function moreDigits(out: string[], minDigits: number, maxDigits: number): void {
  out.push("[0-9]");
  if (minDigits === maxDigits && minDigits === 1) return;
  out.push(`{${minDigits}`);
  if (maxDigits !== minDigits) out.push(",", String(maxDigits));
  out.push("}");
}

const shift = (c: string, by: number) => String.fromCharCode(c.charCodeAt(0) + by);

/** The numbers from `from` to `to`, both of the same number of digits. */
function uniformRange(out: string[], from: string, to: string): void {
  let i = 0;
  while (i < from.length && i < to.length && from[i] === to[i]) i++;
  if (i > 0) out.push(`"${from.slice(0, i)}"`);
  if (i < from.length && i < to.length) {
    if (i > 0) out.push(" ");
    const f = from.charAt(i);
    const t = to.charAt(i);
    const subLen = from.length - i - 1;
    if (subLen > 0) uniformRangeTail(out, f, t, from.slice(i + 1), to.slice(i + 1));
    else out.push(`[${f}-${t}]`);
  }
}

/** uniformRange past the common prefix: first digits `f` < `t`, then the digits `fromSub` and `toSub`. */
function uniformRangeTail(out: string[], f: string, t: string, fromSub: string, toSub: string): void {
  const subLen = fromSub.length;
  const subZeros = "0".repeat(subLen);
  const subNines = "9".repeat(subLen);
  let toReached = false;
  out.push("(");
  if (fromSub === subZeros) {
    digitRange(out, f, shift(t, -1));
    out.push(" ");
    moreDigits(out, subLen, subLen);
  } else {
    out.push(`[${f}] (`);
    uniformRange(out, fromSub, subNines);
    out.push(")");
    if (f < shift(t, -1)) {
      out.push(" | ");
      if (toSub === subNines) {
        digitRange(out, shift(f, 1), t);
        toReached = true;
      } else {
        digitRange(out, shift(f, 1), shift(t, -1));
      }
      out.push(" ");
      moreDigits(out, subLen, subLen);
    }
  }
  if (!toReached) {
    out.push(" | ");
    digitRange(out, t, t);
    out.push(" ");
    uniformRange(out, subZeros, toSub);
  }
  out.push(")");
}

/**
 * An integer in [min, max] (either may be missing) as GBNF, written to `out`: llama.cpp's build_min_max_int.
 * Bounds are whole numbers within ±(2^53 − 1).
 */
function buildMinMaxInt(
  minValue: number | undefined,
  maxValue: number | undefined,
  out: string[],
  decimalsLeft = 16,
  topLevel = true,
): void {
  if (minValue !== undefined && maxValue !== undefined) buildBetween(minValue, maxValue, out, decimalsLeft);
  else if (minValue !== undefined) buildAtLeast(minValue, out, decimalsLeft, topLevel);
  else if (maxValue !== undefined) buildAtMost(maxValue, out, decimalsLeft, topLevel);
  else throw new Error("at least one of minValue or maxValue must be set");
}

function buildBetween(minValue: number, maxValue: number, out: string[], decimalsLeft: number): void {
  if (minValue < 0 && maxValue < 0) {
    out.push('"-" (');
    buildMinMaxInt(-maxValue, -minValue, out, decimalsLeft, true);
    out.push(")");
    return;
  }
  let low = minValue;
  if (low < 0) {
    out.push('"-" (');
    buildMinMaxInt(0, -low, out, decimalsLeft, true);
    out.push(") | ");
    low = 0;
  }
  let minS = String(low);
  const maxS = String(maxValue);
  for (let digits = minS.length; digits < maxS.length; digits++) {
    uniformRange(out, minS, "9".repeat(digits));
    minS = `1${"0".repeat(digits)}`;
    out.push(" | ");
  }
  uniformRange(out, minS, maxS);
}

function buildAtLeast(minValue: number, out: string[], decimalsLeft: number, topLevel: boolean): void {
  const lessDecimals = Math.max(decimalsLeft - 1, 1);
  if (minValue < 0) {
    out.push('"-" (');
    buildMinMaxInt(undefined, -minValue, out, decimalsLeft, false);
    out.push(") | [0] | [1-9] ");
    moreDigits(out, 0, decimalsLeft - 1);
  } else if (minValue === 0) {
    if (topLevel) {
      out.push("[0] | [1-9] ");
      moreDigits(out, 0, lessDecimals);
    } else {
      moreDigits(out, 1, decimalsLeft);
    }
  } else if (minValue <= 9) {
    const c = String(minValue);
    const rangeStart = topLevel ? "1" : "0";
    if (c > rangeStart) {
      digitRange(out, rangeStart, shift(c, -1));
      out.push(" ");
      moreDigits(out, 1, lessDecimals);
      out.push(" | ");
    }
    digitRange(out, c, "9");
    out.push(" ");
    moreDigits(out, 0, lessDecimals);
  } else {
    buildAtLeastMultiDigit(String(minValue), out, lessDecimals, topLevel);
  }
}

function buildAtLeastMultiDigit(minS: string, out: string[], lessDecimals: number, topLevel: boolean): void {
  const c = minS.charAt(0);
  if (c > "1") {
    digitRange(out, topLevel ? "1" : "0", shift(c, -1));
    out.push(" ");
    moreDigits(out, minS.length, lessDecimals);
    out.push(" | ");
  }
  digitRange(out, c, c);
  out.push(" (");
  buildMinMaxInt(Number.parseInt(minS.slice(1), 10), undefined, out, lessDecimals, false);
  out.push(")");
  if (c < "9") {
    out.push(" | ");
    digitRange(out, shift(c, 1), "9");
    out.push(" ");
    moreDigits(out, minS.length - 1, lessDecimals);
  }
}

function buildAtMost(maxValue: number, out: string[], decimalsLeft: number, topLevel: boolean): void {
  const lessDecimals = Math.max(decimalsLeft - 1, 1);
  if (maxValue >= 0) {
    if (topLevel) {
      out.push('"-" [1-9] ');
      moreDigits(out, 0, lessDecimals);
      out.push(" | ");
    }
    buildMinMaxInt(0, maxValue, out, decimalsLeft, true);
  } else {
    out.push('"-" (');
    buildMinMaxInt(-maxValue, undefined, out, decimalsLeft, false);
    out.push(")");
  }
}

function intRange(min: number | undefined, max: number | undefined): string {
  if (min === undefined && max === undefined) return '("-"? integral-part)';
  const out: string[] = [];
  buildMinMaxInt(min, max, out);
  return out.join("");
}

class UnsupportedPattern extends Error {}

function isNode(value: unknown): value is Node {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * A client's schema arrives parsed from JSON; this says so for a value that came another way. A property
 * holding undefined (a schema built in code) is let through: reading it gives undefined, as for a
 * property that is absent, which every read here expects.
 */
function isJson(value: unknown): value is Json {
  if (value === null || typeof value === "string" || typeof value === "boolean") return true;
  if (typeof value === "number") return true;
  if (Array.isArray(value)) return value.every(isJson);
  return (
    typeof value === "object" && Object.values(value).every((child) => child === undefined || isJson(child))
  );
}

function numberOf(node: Node, key: string): number | undefined {
  const v = node[key];
  return typeof v === "number" && Number.isFinite(v) ? v : undefined;
}

/** A length or item count's bounds (the lower one 0 when absent); a schema whose minimum is above its maximum is refused. */
function countBounds(
  schema: Node,
  minKey: string,
  maxKey: string,
  at: string,
): { min: number; max?: number } {
  const min = numberOf(schema, minKey) ?? 0;
  const max = numberOf(schema, maxKey);
  if (max !== undefined && min > max)
    throw new SchemaGrammarError(
      minKey,
      at,
      `${min} is above ${maxKey} ${max}: no value satisfies the schema`,
    );
  return { min, max };
}

/** The lower and upper bounds of a number node, and whether each is exclusive (drafts 4 and 6+ both read). */
function bounds(node: Node): {
  min: number | undefined;
  minExclusive: boolean;
  max: number | undefined;
  maxExclusive: boolean;
} {
  let min = numberOf(node, "minimum");
  let max = numberOf(node, "maximum");
  let minExclusive = node.exclusiveMinimum === true;
  let maxExclusive = node.exclusiveMaximum === true;
  const exMin = numberOf(node, "exclusiveMinimum");
  const exMax = numberOf(node, "exclusiveMaximum");
  if (exMin !== undefined && (min === undefined || exMin >= min)) {
    min = exMin;
    minExclusive = true;
  }
  if (exMax !== undefined && (max === undefined || exMax <= max)) {
    max = exMax;
    maxExclusive = true;
  }
  return { min, minExclusive, max, maxExclusive };
}

const SAFE = Number.MAX_SAFE_INTEGER;
const clampSafe = (n: number) => Math.max(-SAFE, Math.min(SAFE, n));

class SchemaConverter {
  private rules = new Map<string, string>([["space", SPACE_RULE]]);
  private refsBeingResolved = new Set<string>();

  constructor(private readonly root: Json) {}

  format(): string {
    return [...this.rules].map(([name, rule]) => `${name} ::= ${rule}`).join("\n");
  }

  private addRule(name: string, rule: string): string {
    const escName = name.replace(INVALID_RULE_CHARS, "-");
    const existing = this.rules.get(escName);
    if (existing === undefined || existing === rule) {
      this.rules.set(escName, rule);
      return escName;
    }
    let i = 0;
    while (this.rules.has(`${escName}${i}`) && this.rules.get(`${escName}${i}`) !== rule) i++;
    const key = `${escName}${i}`;
    this.rules.set(key, rule);
    return key;
  }

  private addPrimitive(name: string, rule: BuiltinRule): string {
    const n = this.addRule(name, rule.content);
    for (const dep of rule.deps) {
      const depRule = PRIMITIVE_BY_NAME.get(dep) ?? STRING_FORMAT_RULES[dep];
      if (depRule && !this.rules.has(dep)) this.addPrimitive(dep, depRule);
    }
    return n;
  }

  private primitive(ruleName: string, type: string): string {
    const rule = PRIMITIVE_BY_NAME.get(type);
    if (!rule) throw new Error(`no primitive ${type}`);
    return this.addPrimitive(ruleName === "root" ? "root" : type, rule);
  }

  private unionRule(name: string, alternatives: Json[], at: string, key: string): string {
    return alternatives
      .map((alt, i) => this.visit(alt, `${name}${name ? "-" : "alternative-"}${i}`, `${at}/${key}/${i}`))
      .join(" | ");
  }

  /** `#`, `#/$defs/x`, `#/definitions/x`, any JSON pointer into this document. */
  private resolveRef(ref: string, at: string): string {
    if (!ref.startsWith("#")) throw new SchemaGrammarError("$ref", at, `points outside the schema (${ref})`);
    const refName = `ref${ref.slice(1).replace(INVALID_RULE_CHARS, "-")}`;
    if (this.rules.has(refName) || this.refsBeingResolved.has(ref)) return refName;
    let target: Json | undefined = this.root;
    for (const raw of ref.slice(1).split("/").slice(1)) {
      const sel = decodeURIComponent(raw).replaceAll("~1", "/").replaceAll("~0", "~");
      target = isNode(target) ? target[sel] : Array.isArray(target) ? target[Number(sel)] : undefined;
    }
    if (target === undefined) throw new SchemaGrammarError("$ref", at, `points to no definition (${ref})`);
    // A recursive schema refers to the rule being written by its name (the check above).
    this.refsBeingResolved.add(ref);
    const name = this.visit(target, refName, ref.slice(1));
    this.refsBeingResolved.delete(ref);
    if (name !== refName) this.rules.set(refName, name);
    return refName;
  }

  visit(schema: Json, name: string, at: string): string {
    const ruleName = RESERVED_NAMES.has(name) ? `${name}-` : name || "root";
    if (schema === true || (isNode(schema) && Object.keys(schema).length === 0))
      return this.addRule(ruleName, this.addPrimitive("value", PRIMITIVE_RULES.value));
    if (schema === false)
      throw new SchemaGrammarError("false", at, "admits no value: no value satisfies the schema");
    if (!isNode(schema)) throw new SchemaGrammarError(String(schema), at, "is not a schema");
    const type = schema.type;
    const typeIs = (...types: (string | undefined)[]) =>
      types.includes(typeof type === "string" ? type : undefined);

    if (typeof schema.$ref === "string") return this.addRule(ruleName, this.resolveRef(schema.$ref, at));
    for (const key of ["oneOf", "anyOf"] as const) {
      const alts = schema[key];
      if (alts === undefined) continue;
      if (!Array.isArray(alts) || alts.length === 0)
        throw new SchemaGrammarError(key, at, "lists no schema: no value satisfies the schema");
      // The outer node's own keywords (a type beside anyOf) go into every branch.
      const { [key]: _, ...rest } = schema;
      const branches = alts.map((alt) =>
        isNode(alt) && Object.keys(rest).length > 0 ? { ...rest, ...alt } : alt,
      );
      return this.addRule(ruleName, this.unionRule(name, branches, at, key));
    }
    if (Array.isArray(type))
      return this.addRule(
        ruleName,
        this.unionRule(
          name,
          type.map((t) => ({ ...schema, type: t })),
          at,
          "type",
        ),
      );
    if ("const" in schema) return this.addRule(ruleName, formatLiteral(JSON.stringify(schema.const)));
    if ("enum" in schema) {
      const values = schema.enum;
      if (!Array.isArray(values) || values.length === 0)
        throw new SchemaGrammarError("enum", at, "lists no value: no value satisfies the schema");
      return this.addRule(ruleName, `(${values.map((v) => formatLiteral(JSON.stringify(v))).join(" | ")})`);
    }
    if (
      typeIs(undefined, "object") &&
      ("properties" in schema || ("additionalProperties" in schema && schema.additionalProperties !== true))
    ) {
      const required = new Set(Array.isArray(schema.required) ? schema.required.map(String) : []);
      const properties = isNode(schema.properties) ? Object.entries(schema.properties) : [];
      return this.addRule(
        ruleName,
        this.objectRule(properties, required, name, schema.additionalProperties, at),
      );
    }
    if (typeIs(undefined, "object", "string") && Array.isArray(schema.allOf))
      return this.addRule(ruleName, this.allOfRule(schema.allOf, name, at));
    if (typeIs(undefined, "array") && ("items" in schema || "prefixItems" in schema))
      return this.addRule(ruleName, this.arrayRule(schema, name, at));
    if (typeIs(undefined, "array") && ("minItems" in schema || "maxItems" in schema))
      return this.addRule(ruleName, this.arrayRule({ ...schema, items: true }, name, at));
    if (typeIs(undefined, "string")) {
      const format = typeof schema.format === "string" ? schema.format : undefined;
      const formatRule = format === undefined ? undefined : STRING_FORMAT_RULES[`${format}-string`];
      if (formatRule) return this.addRule(ruleName, this.addPrimitive(`${format}-string`, formatRule));
      if (typeof schema.pattern === "string") return this.visitPattern(schema.pattern, ruleName, at);
      if (type === "string" || "minLength" in schema || "maxLength" in schema)
        return this.addRule(ruleName, this.stringRule(schema, at));
    }
    if (type === "integer") return this.addRule(ruleName, this.integerRule(schema, at));
    const { min, max } = bounds(schema);
    if (type === "number" || (type === undefined && (min !== undefined || max !== undefined)))
      return this.addRule(ruleName, this.numberRule(schema, at));
    if (type === "object" || type === undefined)
      return this.addRule(
        ruleName,
        type === "object"
          ? this.addPrimitive("object", PRIMITIVE_RULES.object)
          : this.addPrimitive("value", PRIMITIVE_RULES.value),
      );
    if (typeof type !== "string" || !PRIMITIVE_BY_NAME.has(type))
      throw new SchemaGrammarError(`type: ${JSON.stringify(type)}`, at, "is not a JSON Schema type");
    return this.primitive(ruleName, type);
  }

  private stringRule(schema: Node, at: string): string {
    const { min, max } = countBounds(schema, "minLength", "maxLength", at);
    const char = this.addPrimitive("char", PRIMITIVE_RULES.char);
    return `"\\"" ${buildRepetition(char, min, max ?? Math.max(min, FREE_STRING_LENGTH))} "\\""`;
  }

  private integerRule(schema: Node, at: string): string {
    const b = bounds(schema);
    const min =
      b.min === undefined ? undefined : clampSafe(b.minExclusive ? Math.floor(b.min) + 1 : Math.ceil(b.min));
    const max =
      b.max === undefined ? undefined : clampSafe(b.maxExclusive ? Math.ceil(b.max) - 1 : Math.floor(b.max));
    if (min !== undefined && max !== undefined && min > max)
      throw new SchemaGrammarError(
        "minimum",
        at,
        `no integer lies between the bounds: no value satisfies the schema`,
      );
    if (min === undefined && max === undefined) {
      this.addPrimitive("integral-part", PRIMITIVE_RULES["integral-part"]);
      return '("-"? integral-part)';
    }
    return `(${intRange(min, max)})`;
  }

  /**
   * A number's sign and integral part follow its bounds; its fraction is free and it has no exponent. What lies
   * beyond a bound within the integral part (2.9 against maximum 2.5) is left to the check after generation.
   */
  private numberRule(schema: Node, at: string): string {
    const b = bounds(schema);
    if (b.min === undefined && b.max === undefined)
      return this.addPrimitive("number", PRIMITIVE_RULES.number);
    if (b.min !== undefined && b.max !== undefined && b.min > b.max)
      throw new SchemaGrammarError(
        "minimum",
        at,
        `${b.min} is above maximum ${b.max}: no value satisfies the schema`,
      );
    const frac = '("." [0-9]{1,16})?';
    const nonzeroFrac = '"." [0-9]{0,15} [1-9]';
    /** |x| with integral part in [lo, hi]; `loOpen`: |x| > lo exactly. */
    const magnitude = (lo: number, loOpen: boolean, hi: number | undefined): string => {
      const low = clampSafe(Math.floor(lo));
      const high = hi === undefined ? undefined : clampSafe(Math.floor(hi));
      const open = loOpen && Number.isInteger(lo);
      const parts: string[] = [];
      const from = open ? low + 1 : low;
      if (high === undefined || from <= high) parts.push(`(${intRange(from, high)}) ${frac}`);
      if (open) parts.push(`"${low}" ${nonzeroFrac}`);
      const [only, ...others] = parts;
      return only !== undefined && others.length === 0 ? only : `(${parts.join(" | ")})`;
    };
    if (b.min !== undefined && b.min >= 0) return magnitude(b.min, b.minExclusive, b.max);
    if (b.max !== undefined && b.max <= 0)
      return `"-" ${magnitude(-b.max, b.maxExclusive, b.min === undefined ? undefined : -b.min)}`;
    const negative = `"-" ${magnitude(0, true, b.min === undefined ? undefined : -b.min)}`;
    const positive = magnitude(0, false, b.max);
    return `${negative} | ${positive}`;
  }

  private arrayRule(schema: Node, name: string, at: string): string {
    const prefix = schema.prefixItems;
    const items = schema.items;
    const tuple = Array.isArray(prefix) ? prefix : Array.isArray(items) ? items : undefined;
    const sub = `${name}${name ? "-" : ""}`;
    if (tuple) {
      const parts = tuple.map((item, i) => this.visit(item, `${sub}tuple-${i}`, `${at}/prefixItems/${i}`));
      return `"[" space ${parts.join(' "," space ')} space "]"`;
    }
    const { min, max } = countBounds(schema, "minItems", "maxItems", at);
    const itemRule = this.visit(items ?? true, `${sub}item`, `${at}/items`);
    return `"[" space ${buildRepetition(itemRule, min, max, '"," space')} space "]"`;
  }

  private allOfRule(components: Json[], name: string, at: string): string {
    const required = new Set<string>();
    const properties: [string, Json][] = [];
    const enumCounts = new Map<string, number>();
    const add = (comp: Json, isRequired: boolean) => {
      if (!isNode(comp)) return;
      if (typeof comp.$ref === "string") {
        const target = this.refTarget(comp.$ref);
        if (target !== undefined) add(target, isRequired);
      } else if (isNode(comp.properties)) {
        for (const [prop, s] of Object.entries(comp.properties)) {
          properties.push([prop, s]);
          if (isRequired) required.add(prop);
        }
      } else if (Array.isArray(comp.enum)) {
        for (const v of comp.enum) {
          const literal = formatLiteral(JSON.stringify(v));
          enumCounts.set(literal, (enumCounts.get(literal) ?? 0) + 1);
        }
      }
    };
    for (const comp of components) {
      const alts = isNode(comp) ? comp.anyOf : undefined;
      if (Array.isArray(alts)) for (const alt of alts) add(alt, false);
      else add(comp, true);
    }
    const intersection = [...enumCounts].filter(([, n]) => n === components.length).map(([v]) => v);
    if (intersection.length > 0) return `(${intersection.join(" | ")})`;
    return this.objectRule(properties, required, name, undefined, at);
  }

  private refTarget(ref: string): Json | undefined {
    let target: Json | undefined = this.root;
    for (const sel of ref.slice(1).split("/").slice(1))
      target = isNode(target) ? target[sel.replaceAll("~1", "/").replaceAll("~0", "~")] : undefined;
    return target;
  }

  /** Required properties in order, then the optional ones, each at most once, in order. */
  private objectRule(
    properties: [string, Json][],
    required: Set<string>,
    name: string,
    additional: Json | undefined,
    at: string,
  ): string {
    const listed = new Set(properties.map(([p]) => p));
    const missing = [...required].find((p) => !listed.has(p));
    if (missing !== undefined && (additional === undefined || additional === false))
      throw new SchemaGrammarError(
        `required: ${missing}`,
        at,
        "names a property the schema does not list, and no other property is allowed: no value satisfies the schema",
      );
    const requiredProps: string[] = [];
    const optionalProps: string[] = [];
    const kvRules = new Map<string, string>();
    const sub = `${name}${name ? "-" : ""}`;
    for (const [prop, propSchema] of properties) {
      const propRule = this.visit(propSchema, `${sub}${prop}`, `${at}/properties/${prop}`);
      kvRules.set(
        prop,
        this.addRule(
          `${sub}${prop}-kv`,
          `${formatLiteral(JSON.stringify(prop))} space ":" space ${propRule}`,
        ),
      );
      (required.has(prop) ? requiredProps : optionalProps).push(prop);
    }
    if (additional !== undefined && additional !== false) {
      const subName = `${sub}additional`;
      const valueRule =
        isNode(additional) && Object.keys(additional).length > 0
          ? this.visit(additional, `${subName}-value`, `${at}/additionalProperties`)
          : this.addPrimitive("value", PRIMITIVE_RULES.value);
      const keyRule =
        properties.length === 0
          ? this.addPrimitive("string", PRIMITIVE_RULES.string)
          : this.addRule(`${subName}-k`, this.notStrings(properties.map(([p]) => p)));
      kvRules.set("*", this.addRule(`${subName}-kv`, `${keyRule} ":" space ${valueRule}`));
      optionalProps.push("*");
    }
    if (requiredProps.length === 0 && optionalProps.length === 0) return '"{" space "}"';
    let rule = `"{" space ${requiredProps.map((p) => kvRules.get(p)).join(' "," space ')}`;
    if (optionalProps.length > 0) {
      rule += " (";
      if (requiredProps.length > 0) rule += ' "," space ( ';
      const recursiveRefs = (ks: string[], firstIsOptional: boolean): string => {
        const [k, ...rest] = ks;
        if (k === undefined) return "";
        const kv = kvRules.get(k);
        if (kv === undefined) throw new Error(`no rule for the property ${k}`);
        const commaRef = `( "," space ${kv} )`;
        let res = firstIsOptional
          ? commaRef + (k === "*" ? "*" : "?")
          : kv + (k === "*" ? ` ${commaRef}*` : "");
        if (rest.length > 0) res += ` ${this.addRule(`${sub}${k}-rest`, recursiveRefs(rest, true))}`;
        return res;
      };
      rule += optionalProps.map((_, i) => recursiveRefs(optionalProps.slice(i), false)).join(" | ");
      if (requiredProps.length > 0) rule += " )";
      rule += " )?";
    }
    return `${rule} space "}"`;
  }

  /** A JSON string that is none of `strings` (keys of additional properties). */
  private notStrings(strings: string[]): string {
    type Trie = { children: Map<string, Trie>; end: boolean };
    const trie: Trie = { children: new Map(), end: false };
    for (const s of strings) {
      let node = trie;
      for (const c of s) {
        const next = node.children.get(c) ?? { children: new Map(), end: false };
        node.children.set(c, next);
        node = next;
      }
      node.end = true;
    }
    const char = this.addPrimitive("char", PRIMITIVE_RULES.char);
    const rangeChar = (c: string) => (c === "\\" || c === "]" || c === "-" || c === '"' ? `\\${c}` : c);
    const out: string[] = ['"\\"" ( '];
    const visit = (node: Trie) => {
      let rejects = "";
      let first = true;
      for (const [c, child] of node.children) {
        rejects += rangeChar(c);
        if (!first) out.push(" | ");
        first = false;
        out.push(`[${rangeChar(c)}]`);
        if (child.children.size > 0) {
          out.push(" (");
          visit(child);
          out.push(")");
        } else {
          out.push(` ${char}+`);
        }
      }
      if (node.children.size > 0) out.push(` | [^"${rejects}] ${char}*`);
    };
    visit(trie);
    out.push(" )");
    if (!trie.end) out.push("?");
    out.push(' "\\""');
    return out.join("");
  }

  private visitPattern(pattern: string, name: string, at: string): string {
    const snapshot = new Map(this.rules);
    try {
      return this.patternToRule(pattern, name);
    } catch (error) {
      if (!(error instanceof UnsupportedPattern)) throw error;
      // As llama.cpp: a pattern the grammar cannot read becomes a plain string; the check after generation
      // still applies it.
      this.rules = snapshot;
      return this.addRule(name, this.stringRule({}, at));
    }
  }

  private patternToRule(pattern: string, name: string): string {
    if (pattern.length < 2 || !pattern.startsWith("^") || !pattern.endsWith("$"))
      throw new UnsupportedPattern("not anchored with ^ and $");
    const parser = new PatternParser(pattern.slice(1, -1), name, (n, rule) => this.addRule(n, rule));
    const rule = toRule(parser.transform());
    if (parser.depth !== 0) throw new UnsupportedPattern("unbalanced parentheses");
    return this.addRule(name, `"\\"" (${rule}) "\\""`);
  }
}

/** A regex fragment as GBNF, and whether it is a literal (to be quoted). */
type Piece = [string, boolean];
const toRule = ([s, isLiteral]: Piece) => (isLiteral ? `"${s}"` : s);

/** llama.cpp's pattern reader: a regex (without its anchors) as one GBNF rule, sub-rules added as it goes. */
class PatternParser {
  i = 0;
  depth = 0;
  private readonly subRuleIds = new Map<string, string>();

  constructor(
    private readonly sub: string,
    private readonly name: string,
    private readonly addRule: (name: string, rule: string) => string,
  ) {}

  /** The sequence from here to the closing parenthesis of the current group, or to the end. */
  transform(): Piece {
    const seq: Piece[] = [];
    const sub = this.sub;
    while (this.i < sub.length) {
      const c = sub.charAt(this.i);
      if (c === ")") {
        this.i++;
        if (this.depth === 0) throw new UnsupportedPattern("unbalanced parentheses");
        this.depth--;
        return joinSeq(seq);
      }
      this.step(c, seq);
    }
    return joinSeq(seq);
  }

  /** Reads the item starting with `c` (anything but a closing parenthesis) into `seq`. */
  private step(c: string, seq: Piece[]): void {
    const sub = this.sub;
    const i = this.i;
    if (c === ".") {
      seq.push([this.addRule("dot", DOT_RULE), false]);
      this.i++;
    } else if (c === "(") {
      this.group(seq);
    } else if (c === "^" || c === "$") {
      throw new UnsupportedPattern("anchor inside the pattern");
    } else if (c === "[") {
      seq.push([characterClass(sub, i, (next) => (this.i = next)), false]);
    } else if (c === "|") {
      seq.push(["|", false]);
      this.i++;
    } else if (c === "*" || c === "+" || c === "?") {
      this.quantifier(c, seq);
    } else if (c === "{") {
      this.curlyRepetition(seq);
    } else if (c === "\\" && sub.charAt(i + 1) in CLASS_ESCAPES) {
      seq.push([`[${CLASS_ESCAPES[sub.charAt(i + 1)]}]`, false]);
      this.i += 2;
    } else if (c === "\\" && "DWS".includes(sub[i + 1] ?? "x")) {
      const cls = CLASS_ESCAPES[sub.charAt(i + 1).toLowerCase()];
      seq.push([`[^${cls}${JSON_UNSAFE}]`, false]);
      this.i += 2;
    } else {
      seq.push([this.literal(), true]);
    }
  }

  private group(seq: Piece[]): void {
    const sub = this.sub;
    this.i++;
    if (sub[this.i] === "?") {
      if (sub[this.i + 1] === ":") this.i += 2;
      else throw new UnsupportedPattern("lookaround or named group");
    }
    this.depth++;
    seq.push([`(${toRule(this.transform())})`, false]);
  }

  private quantifier(c: "*" | "+" | "?", seq: Piece[]): void {
    this.i++;
    if (this.sub[this.i] === "?") this.i++; // a lazy quantifier matches the same strings
    if (c === "?") {
      const last = seq.at(-1);
      if (!last) throw new UnsupportedPattern("nothing to repeat");
      seq[seq.length - 1] = [`${toRule(last)}?`, false];
    } else this.repeat(seq, c === "*" ? 0 : 1, undefined);
  }

  private curlyRepetition(seq: Piece[]): void {
    const sub = this.sub;
    const end = sub.indexOf("}", this.i);
    if (end < 0) throw new UnsupportedPattern("unterminated curly brackets");
    const nums = sub.slice(this.i + 1, end).split(",");
    this.i = end + 1;
    if (sub[this.i] === "?") this.i++;
    const parse = (s: string | undefined) => (s === undefined || s === "" ? undefined : Number(s));
    const min = parse(nums[0]) ?? 0;
    const max = nums.length === 1 ? min : parse(nums[1]);
    if (nums.length > 2 || !Number.isInteger(min) || (max !== undefined && !Number.isInteger(max)))
      throw new UnsupportedPattern("invalid curly brackets");
    this.repeat(seq, min, max);
  }

  private repeat(seq: Piece[], min: number, max: number | undefined): void {
    const last = seq.at(-1);
    if (!last) throw new UnsupportedPattern("nothing to repeat");
    let item = last[1] ? `"${last[0]}"` : last[0];
    if (!last[1]) {
      let id = this.subRuleIds.get(item);
      if (id === undefined) {
        id = this.addRule(`${this.name}-${this.subRuleIds.size + 1}`, item);
        this.subRuleIds.set(item, id);
      }
      item = id;
    }
    seq[seq.length - 1] = [buildRepetition(item, min, max ?? min + OPEN_REPETITION), false];
  }

  /** A run of literal characters, escapes resolved, written as inside a GBNF string inside a JSON string. */
  private literal(): string {
    const sub = this.sub;
    let literal = "";
    while (this.i < sub.length) {
      const ch = sub.charAt(this.i);
      const next = sub[this.i + 1];
      if (ch === "\\") {
        if (next === undefined) throw new UnsupportedPattern("trailing backslash");
        if (ESCAPED_IN_REGEXPS_BUT_NOT_IN_LITERALS.has(next)) {
          literal += next;
          this.i += 2;
        } else if (next === "\\" || next === '"') {
          literal += `\\\\\\${next}`; // JSON-escaped inside the string, then GBNF-escaped
          this.i += 2;
        } else if (next === "n" || next === "t" || next === "r") {
          literal += `\\\\${next}`; // as JSON writes it
          this.i += 2;
        } else {
          break;
        }
      } else if (ch === '"') {
        literal += '\\\\\\"';
        this.i++;
      } else if (
        !NON_LITERAL.has(ch) &&
        (this.i === sub.length - 1 || literal === "" || next === "." || !NON_LITERAL.has(next ?? ""))
      ) {
        literal += ch;
        this.i++;
      } else {
        break;
      }
    }
    if (literal === "")
      throw new UnsupportedPattern(`unsupported at ${this.i}: ${sub.slice(this.i, this.i + 2)}`);
    return literal;
  }
}

/** Adjacent literals merged into one quoted string, the rest as they are. */
function joinSeq(seq: Piece[]): Piece {
  const ret: Piece[] = [];
  let literal = "";
  for (const item of seq) {
    if (item[1]) literal += item[0];
    else {
      if (literal) ret.push([literal, true]);
      literal = "";
      ret.push(item);
    }
  }
  if (literal) ret.push([literal, true]);
  return [ret.map(toRule).join(" "), false];
}

/** `[...]` starting at `start`: a GBNF range; `\d \w \s` inside are expanded, negations never write `"` or `\`. */
function characterClass(sub: string, start: number, advance: (next: number) => void): string {
  let i = start + 1;
  const negated = sub[i] === "^";
  if (negated) i++;
  let body = "";
  while (i < sub.length && (sub[i] !== "]" || body === "")) {
    const ch = sub.charAt(i);
    if (ch === "\\") {
      const next = sub[i + 1];
      if (next === undefined) throw new UnsupportedPattern("trailing backslash");
      if (next in CLASS_ESCAPES) body += CLASS_ESCAPES[next];
      else if (next === "x") {
        body += sub.slice(i, i + 4);
        i += 2;
      } else if ('tnr\\"[]-'.includes(next)) body += `\\${next}`;
      else if (/[A-Za-z0-9]/.test(next)) throw new UnsupportedPattern(`\\${next}`);
      else body += next; // \. \/ \+ ...: the character itself, which GBNF writes unescaped
      i += 2;
    } else {
      body += ch === '"' || ch === "]" ? `\\${ch}` : ch;
      i++;
    }
  }
  if (i >= sub.length) throw new UnsupportedPattern("unterminated character class");
  advance(i + 1);
  return negated ? `[^${body}${JSON_UNSAFE}]` : `[${body}]`;
}

/**
 * The GBNF grammar (root rule `root`) whose sentences are JSON values valid against the schema as far as a
 * grammar can say; throws SchemaGrammarError for a schema no value satisfies or a `$ref` outside the document.
 */
export function jsonSchemaToGbnf(schema: unknown): string {
  if (!isJson(schema)) throw new SchemaGrammarError("schema", "", "is not JSON");
  const root = schema;
  const converter = new SchemaConverter(root);
  converter.visit(root, "", "");
  return converter.format();
}
