// How large a request's body may be and how strict its text is: the gateway's default, unless a route
// raises the limit (bodyLimit) or carries free text (freeText), matched by method and path.

import type { TextRule } from "./input.ts";
import type { LoadedRoute } from "./loader.ts";

export interface InputRules {
  limit: number;
  rule: TextRule;
}

export function inputRules(routes: LoadedRoute[], defaultLimit: number): (request: Request) => InputRules {
  const special = routes
    .filter((r) => r.definition.bodyLimit !== undefined || r.definition.freeText)
    .map((r) => ({
      method: r.method,
      pattern: new RegExp(`^${r.path.replace(/:\w+/g, "[^/]+")}$`),
      limit: r.definition.bodyLimit ?? defaultLimit,
      rule: (r.definition.freeText ? "free" : "strict") as TextRule,
    }));
  return (request) => {
    if (special.length === 0) return { limit: defaultLimit, rule: "strict" };
    const path = new URL(request.url).pathname;
    return (
      special.find((r) => r.method === request.method && r.pattern.test(path)) ?? {
        limit: defaultLimit,
        rule: "strict",
      }
    );
  };
}
