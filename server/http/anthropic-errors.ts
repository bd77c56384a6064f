// Anthropic's error shape for the routes that speak its Messages API (a route's `errorStyle:
// "anthropic"`): `{"type":"error","error":{"type","message"},"request_id"}` with Anthropic's status
// codes, read from the same problems the OpenAI shape is rendered from (problems.ts).

import type { ErrorType } from "#contracts/anthropic/messages.ts";
import type { ErrorCode } from "#core/errors.ts";
import { httpStatusOf } from "../error-table.ts";
import type { LoadedRoute } from "./loader.ts";
import type { Problem } from "./problems.ts";

/** Anthropic's error type and status per service error code (docs.anthropic.com, "Errors"). */
const anthropicErrors: Record<ErrorCode, { type: ErrorType; status?: number }> = {
  validation_error: { type: "invalid_request_error" },
  unauthenticated: { type: "authentication_error" },
  totp_required: { type: "authentication_error" },
  forbidden: { type: "permission_error" },
  not_found: { type: "not_found_error" },
  already_exists: { type: "invalid_request_error", status: 400 },
  failed_precondition: { type: "invalid_request_error", status: 400 },
  payload_too_large: { type: "request_too_large" },
  // The client sent its body too slowly (408): the closest of Anthropic's types.
  request_timeout: { type: "timeout_error" },
  rate_limited: { type: "rate_limit_error" },
  // Anthropic's "overloaded": clients (the SDKs, Claude Code) retry it as they retry 503.
  unavailable: { type: "overloaded_error", status: 529 },
  upstream_refused: { type: "invalid_request_error" },
  upstream_error: { type: "api_error" },
  upstream_timeout: { type: "timeout_error" },
  internal: { type: "api_error" },
};

export function anthropicProblem(problem: Problem, requestId: string | undefined) {
  const mapped = anthropicErrors[problem.code];
  return {
    status: mapped.status ?? httpStatusOf(problem),
    body: {
      type: "error" as const,
      error: { type: mapped.type, message: problem.message },
      request_id: requestId ?? null,
    },
  };
}

/** Whether a request is for a route that answers errors in Anthropic's shape (matched by method and path). */
export function anthropicRoutes(routes: LoadedRoute[]): (request: Request) => boolean {
  const matchers = routes
    .filter((r) => r.definition.errorStyle === "anthropic")
    .map((r) => ({ method: r.method, pattern: new RegExp(`^${r.path.replace(/:\w+/g, "[^/]+")}$`) }));
  if (matchers.length === 0) return () => false;
  return (request) => {
    const path = new URL(request.url).pathname;
    return matchers.some((m) => m.method === request.method && m.pattern.test(path));
  };
}

/**
 * Whether a path lies under an Anthropic route's path (`/v1/messages`, `/v1/messages/batches`): no route
 * there is 404 in Anthropic's shape (`not_found_error`), since only an Anthropic client asks for it.
 */
export function underAnthropicRoutes(routes: LoadedRoute[]): (path: string) => boolean {
  const prefixes = routes
    .filter((r) => r.definition.errorStyle === "anthropic")
    .map((r) => r.path.replace(/\/:.*$/, ""));
  return (path) => prefixes.some((prefix) => path === prefix || path.startsWith(`${prefix}/`));
}
