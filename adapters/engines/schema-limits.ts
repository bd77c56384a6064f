// Size limits of a JSON Schema that becomes a grammar (response_format json_schema, tool parameters),
// after OpenAI's published structured-outputs limits: a schema past them is a 400 at once, instead of
// a grammar compiled for a minute while it holds a worker's slot (a 50,000-value enum held a llama.cpp
// slot 84-90 s). The inference gateway checks them before a request is admitted; the llama.cpp worker
// checks them again before it compiles a grammar.

export const schemaLimits = {
  /** Object properties in the whole schema. */
  properties: 5000,
  /** Levels of nesting (an object's properties, an array's items). */
  depth: 10,
  /** Enum values in the whole schema. */
  enumValues: 1000,
  /** Characters of all property names, definition names, enum values and const values. */
  totalChars: 120_000,
  /** An enum of more than 250 values may hold this many characters in all. */
  largeEnumChars: 15_000,
  largeEnumValues: 250,
} as const;

type Json = unknown;

const isObject = (v: Json): v is Record<string, Json> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

const textLength = (v: Json): number => (typeof v === "string" ? v.length : JSON.stringify(v ?? null).length);

/** The first limit a schema passes, in words; undefined when it is within all of them. */
export function schemaSizeProblem(schema: Json): string | undefined {
  let properties = 0;
  let enumValues = 0;
  let chars = 0;
  // Iterative: a schema's own nesting must not overflow this walk.
  const stack: [Json, number][] = [[schema, 1]];
  for (let top = stack.pop(); top !== undefined; top = stack.pop()) {
    const [node, depth] = top;
    if (!isObject(node)) continue;
    if (depth > schemaLimits.depth) return `nests deeper than ${schemaLimits.depth} levels`;
    if (isObject(node.properties)) {
      const names = Object.keys(node.properties);
      properties += names.length;
      if (properties > schemaLimits.properties)
        return `has more than ${schemaLimits.properties} object properties`;
      for (const name of names) {
        chars += name.length;
        stack.push([node.properties[name], depth + 1]);
      }
    }
    if (Array.isArray(node.enum)) {
      enumValues += node.enum.length;
      if (enumValues > schemaLimits.enumValues) return `has more than ${schemaLimits.enumValues} enum values`;
      let own = 0;
      for (const value of node.enum) own += textLength(value);
      if (node.enum.length > schemaLimits.largeEnumValues && own > schemaLimits.largeEnumChars)
        return `has an enum of more than ${schemaLimits.largeEnumValues} values longer than ${schemaLimits.largeEnumChars} characters in all`;
      chars += own;
    }
    if ("const" in node) chars += textLength(node.const);
    for (const key of ["$defs", "definitions"]) {
      const defs = node[key];
      if (!isObject(defs)) continue;
      for (const name of Object.keys(defs)) {
        chars += name.length;
        stack.push([defs[name], depth]);
      }
    }
    for (const key of ["items", "additionalProperties", "not", "if", "then", "else"])
      if (isObject(node[key]))
        stack.push([node[key], key === "items" || key === "additionalProperties" ? depth + 1 : depth]);
    for (const key of ["prefixItems", "anyOf", "oneOf", "allOf"]) {
      const list = node[key];
      if (Array.isArray(list))
        for (const sub of list) stack.push([sub, key === "prefixItems" ? depth + 1 : depth]);
    }
    if (chars > schemaLimits.totalChars)
      return `has more than ${schemaLimits.totalChars} characters of property names, definition names, enum and const values`;
  }
  return undefined;
}
