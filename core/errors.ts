// The one error type services throw. Transports map `code` through server/error-table.ts;
// services never choose an HTTP status or a gRPC code themselves.

export const errorCodes = [
  "validation_error",
  "unauthenticated",
  "totp_required",
  "forbidden",
  "not_found",
  /** A duplicate name or key. HTTP 409 `conflict`, gRPC ALREADY_EXISTS. */
  "already_exists",
  /** A state that forbids the operation. HTTP 409 `conflict`, gRPC FAILED_PRECONDITION. */
  "failed_precondition",
  "payload_too_large",
  /** The request's body did not arrive in time (HTTP 408). */
  "request_timeout",
  "rate_limited",
  "unavailable",
  /**
   * The model's server refused the request (a 4xx of its own, e.g. an image part a text model cannot
   * read): its status and its error pass through to the client, and nothing is retried.
   */
  "upstream_refused",
  /** The model's server failed or answered badly (HTTP 502). */
  "upstream_error",
  /** The model's server did not answer in time (HTTP 504). */
  "upstream_timeout",
  "internal",
] as const;
export type ErrorCode = (typeof errorCodes)[number];

export interface FieldProblem {
  field: string;
  message: string;
}

/**
 * What an error says besides its message. The details the transports read are named; a service may add
 * others of its own (a scanner's name, a limit), which go out in the platform's envelope as they are.
 */
export interface ErrorDetails {
  /** validation_error: each bad field and what it must be. */
  fields?: FieldProblem[];
  /** OpenAI's `param`, when it is not the first field's. */
  param?: string | null;
  /** OpenAI's `code`, passed through (a replica's own, content_policy_violation...); null is kept. */
  openai_code?: string | null;
  /** OpenAI's error `type`, passed through. */
  type?: string;
  [detail: string]: unknown;
}

export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: ErrorDetails,
  ) {
    super(message);
    this.name = "AppError";
  }
}

export const invalid = (field: string, message: string): AppError =>
  new AppError("validation_error", `${field}: ${message}`, { fields: [{ field, message }] });

export const notFound = (what: string): AppError => new AppError("not_found", `${what} not found`);

/**
 * The code a caller of the inference gateway was answered with (content_policy_violation,
 * insufficient_quota, a replica's own…), else the platform's: what its logs and metrics record, so they
 * speak the API's vocabulary.
 */
export function answeredCode(error: AppError): string {
  const answered = error.details?.openai_code;
  return typeof answered === "string" ? answered : error.code;
}
