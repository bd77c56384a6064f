// Turns anything thrown while answering a request into one AppError-shaped problem, and renders it in
// the envelope of CONTRACTS (platform) or of the OpenAI API (inference gateway).

import { propertyOf } from "#core/error-chain.ts";
import { AppError, type ErrorCode, type ErrorDetails, type FieldProblem } from "#core/errors.ts";
import { isDatabaseUnreachable } from "#db/unreachable.ts";
import { errorTable } from "../error-table.ts";
import { paramOf, ruleOf, type SchemaIssue } from "./field-messages.ts";

export interface Problem {
  code: ErrorCode;
  message: string;
  details?: ErrorDetails;
}

interface ElysiaValidationError {
  type?: string;
  all: ({ path?: string } & SchemaIssue)[];
}

/** What Elysia's ValidationError carries that matters here: where (body, query...) and TypeBox's errors. */
function validationErrorOf(error: unknown): ElysiaValidationError {
  const type = propertyOf(error, "type");
  const all = propertyOf(error, "all");
  return {
    ...(typeof type === "string" ? { type } : {}),
    all: Array.isArray(all) ? all.map(issueOf) : [],
  };
}

function issueOf(issue: unknown): { path?: string } & SchemaIssue {
  const path = propertyOf(issue, "path");
  const type = propertyOf(issue, "type");
  return {
    ...(typeof path === "string" ? { path } : {}),
    ...(typeof type === "number" ? { type } : {}),
    schema: propertyOf(issue, "schema"),
    value: propertyOf(issue, "value"),
  };
}

export function problemOf(elysiaCode: string | number, error: unknown, request: Request): Problem {
  if (error instanceof AppError) {
    return { code: error.code, message: error.message, ...(error.details ? { details: error.details } : {}) };
  }
  // A database that went away is a dependency outage, not a bug: 503 and "retry shortly".
  if (isDatabaseUnreachable(error)) {
    return {
      code: "unavailable",
      message: "the database is unreachable; retry shortly",
      details: { retry_after_s: 1 },
    };
  }
  switch (elysiaCode) {
    case "VALIDATION": {
      const v = validationErrorOf(error);
      if (v.type === "response") return { code: "internal", message: "internal error" };
      const fields = validationFields(v);
      const list = fields.map((f) => `${paramOf(f.field)} ${f.message}`).join("; ");
      return { code: "validation_error", message: list, details: { fields } };
    }
    case "PARSE":
      return {
        code: "validation_error",
        message: "the request body is not valid JSON (or not of its content type)",
        details: { fields: [{ field: "body", message: "cannot be parsed" }] },
      };
    case "NOT_FOUND":
      return {
        code: "not_found",
        message: `no route for ${request.method} ${new URL(request.url).pathname}`,
      };
    default:
      return { code: "internal", message: "internal error" };
  }
}

function validationFields(error: ElysiaValidationError): FieldProblem[] {
  const where = error.type && error.type !== "body" ? `${error.type}.` : "";
  const seen = new Map<string, string>();
  for (const issue of error.all) {
    const path = (issue.path ?? "").replace(/^\//, "").replace(/\//g, ".") || error.type || "body";
    const field = `${where}${path}`;
    if (!seen.has(field)) seen.set(field, ruleOf(issue));
  }
  if (seen.size === 0) seen.set(error.type ?? "body", "is invalid");
  return [...seen].map(([field, message]) => ({ field, message }));
}

export function platformBody(problem: Problem) {
  return {
    error: {
      code: errorTable[problem.code].wire,
      message: problem.message,
      ...(problem.details ? { details: problem.details } : {}),
    },
  };
}

const openaiCodes: Partial<Record<ErrorCode, { type: string; code: string }>> = {
  validation_error: { type: "invalid_request_error", code: "invalid_request_error" },
  payload_too_large: { type: "invalid_request_error", code: "payload_too_large" },
  request_timeout: { type: "invalid_request_error", code: "request_timeout" },
  unauthenticated: { type: "invalid_request_error", code: "invalid_api_key" },
  forbidden: { type: "invalid_request_error", code: "model_not_allowed" },
  // An unknown route or record; an unknown model says model_not_found itself (admission.ts, models.ts).
  not_found: { type: "invalid_request_error", code: "not_found" },
  rate_limited: { type: "rate_limit_error", code: "rate_limit_exceeded" },
  unavailable: { type: "server_error", code: "deployment_unavailable" },
  upstream_refused: { type: "invalid_request_error", code: "invalid_request_error" },
  upstream_error: { type: "server_error", code: "upstream_error" },
  upstream_timeout: { type: "server_error", code: "upstream_timeout" },
};

export function openaiBody(problem: Problem) {
  const mapped = openaiCodes[problem.code] ?? { type: "server_error", code: errorTable[problem.code].wire };
  const details = problem.details ?? {};
  const fields = details.fields ?? [];
  return {
    error: {
      message: problem.message,
      // A replica's refusal keeps its own type and code, even a null code (refusal.ts).
      type: typeof details.type === "string" ? details.type : mapped.type,
      param: details.param ?? (fields[0] ? paramOf(fields[0].field) : null),
      code: details.openai_code !== undefined ? details.openai_code : mapped.code,
    },
  };
}
