// SCIM filters (RFC 7644 §3.4.2.2) through scim2-parse-filter: parsed to its AST and tested against the
// resources as they are answered. A filter that does not parse is 400 with scimType `invalidFilter`.
import { filter as compile, type Filter, parse } from "scim2-parse-filter";
import { AppError } from "#core/errors.ts";

/** userName and e-mails are case-insensitive (RFC 7643 `caseExact: false`); we keep them lower-cased. */
const caseInsensitive = new Set(["username", "emails", "emails.value"]);

function lowerCased(f: Filter): Filter {
  switch (f.op) {
    case "and":
    case "or":
      return { ...f, filters: f.filters.map(lowerCased) };
    case "not":
      return { ...f, filter: lowerCased(f.filter) };
    case "[]":
      return f;
    case "pr":
      return f;
    default:
      return caseInsensitive.has(f.attrPath.toLowerCase()) && typeof f.compValue === "string"
        ? { ...f, compValue: f.compValue.toLowerCase() }
        : f;
  }
}

export function compileFilter<R extends object>(expression: string | undefined): (resource: R) => boolean {
  if (!expression?.trim()) return () => true;
  let ast: Filter;
  try {
    ast = parse(expression);
  } catch (error) {
    throw new AppError("validation_error", `the filter cannot be parsed: ${String(error)}`, {
      scimType: "invalidFilter",
      fields: [{ field: "filter", message: "cannot be parsed" }],
    });
  }
  return compile(lowerCased(ast));
}

/** One page of a list, as startIndex (1-based) and count ask (count capped by `maxCount`). */
export function page<R>(items: R[], startIndex = 1, count = 100, maxCount = 200) {
  const size = Math.min(count, maxCount);
  const slice = items.slice(startIndex - 1, startIndex - 1 + size);
  return { totalResults: items.length, startIndex, itemsPerPage: slice.length, Resources: slice };
}
