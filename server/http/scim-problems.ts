// SCIM answers its errors in RFC 7644 §3.12's shape, not the platform's envelope: an identity
// provider's SCIM client reads `status`, `scimType` and `detail`. The filtration gateway renders every
// problem of a /scim/ path through this.
import { errorSchema, type ScimError, scimContentType } from "#services/scim/protocol.ts";
import { httpStatusOf } from "../error-table.ts";
import type { Problem } from "./problems.ts";

/** scimType for problems a service did not name one for (RFC 7644 Table 9). */
function scimTypeOf(problem: Problem): string | undefined {
  const named = problem.details?.scimType;
  if (typeof named === "string") return named;
  if (problem.code === "validation_error") return "invalidValue";
  if (problem.code === "already_exists") return "uniqueness";
  return undefined;
}

export function scimProblem(problem: Problem, request: Request): Response | undefined {
  if (!new URL(request.url).pathname.startsWith("/scim/")) return undefined;
  const status = httpStatusOf(problem);
  const scimType = scimTypeOf(problem);
  const body: ScimError = {
    schemas: [errorSchema],
    status: String(status),
    ...(scimType ? { scimType } : {}),
    detail: problem.code === "internal" ? "internal error" : problem.message,
  };
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": `${scimContentType}; charset=utf-8` },
  });
}
