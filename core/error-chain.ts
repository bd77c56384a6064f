// Reading what drivers and libraries hang on the values they throw (`code`, `cause`, `body`...) without
// assuming the value is an Error, or an object at all.

/** The property `key` of a thrown value, or undefined when it is not an object or lacks it. */
export function propertyOf(value: unknown, key: string): unknown {
  // Reflect.get reads what `value.key` reads (getters and inherited properties included), for any key.
  return typeof value === "object" && value !== null ? Reflect.get(value, key) : undefined;
}

/** The error and its causes, outermost first: drizzle and postgres.js wrap one error in another. */
export function causeChain(error: unknown, maxDepth = 4): unknown[] {
  const chain: unknown[] = [];
  for (let e: unknown = error; e && chain.length < maxDepth; e = propertyOf(e, "cause")) chain.push(e);
  return chain;
}

/** The first string `code` along the cause chain. */
export function codeInChain(error: unknown): string | undefined {
  for (const e of causeChain(error)) {
    const code = propertyOf(e, "code");
    if (typeof code === "string") return code;
  }
  return undefined;
}

/** The `message` of a thrown value when it has a string one (an Error, or an object shaped like one). */
export function messageOf(error: unknown): string | undefined {
  const message = propertyOf(error, "message");
  return typeof message === "string" ? message : undefined;
}
