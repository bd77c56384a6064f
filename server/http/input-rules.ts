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
  const fallback: InputRules = { limit: defaultLimit, rule: "strict" };
  if (special.length === 0) return () => fallback;
  return (request) => {
    const path = pathOf(request.url);
    return special.find((r) => r.method === request.method && r.pattern.test(path)) ?? fallback;
  };
}

/** The path of an absolute URL as a Request holds it (already normalised), without parsing the URL. */
function pathOf(url: string): string {
  const start = url.indexOf("/", url.indexOf("//") + 2);
  if (start === -1) return "/";
  const query = url.indexOf("?", start);
  return query === -1 ? url.slice(start) : url.slice(start, query);
}
