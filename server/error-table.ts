// The one table from a service error code to what each transport says. The HTTP error hook, the
// inference gateway's OpenAI-shaped errors and the Connect interceptor all read it.
import { Code } from "@connectrpc/connect";
import type { ErrorCode, ErrorDetails } from "#core/errors.ts";

export interface ErrorMapping {
  status: number;
  /** `error.code` in the platform envelope (CONTRACTS: Errors). */
  wire: string;
  grpc: Code;
}

export const errorTable: Record<ErrorCode, ErrorMapping> = {
  validation_error: { status: 400, wire: "validation_error", grpc: Code.InvalidArgument },
  unauthenticated: { status: 401, wire: "unauthenticated", grpc: Code.Unauthenticated },
  totp_required: { status: 401, wire: "totp_required", grpc: Code.Unauthenticated },
  forbidden: { status: 403, wire: "forbidden", grpc: Code.PermissionDenied },
  not_found: { status: 404, wire: "not_found", grpc: Code.NotFound },
  already_exists: { status: 409, wire: "conflict", grpc: Code.AlreadyExists },
  failed_precondition: { status: 409, wire: "conflict", grpc: Code.FailedPrecondition },
  payload_too_large: { status: 413, wire: "payload_too_large", grpc: Code.ResourceExhausted },
  request_timeout: { status: 408, wire: "request_timeout", grpc: Code.DeadlineExceeded },
  rate_limited: { status: 429, wire: "rate_limit_exceeded", grpc: Code.ResourceExhausted },
  unavailable: { status: 503, wire: "unavailable", grpc: Code.Unavailable },
  upstream_refused: { status: 400, wire: "upstream_refused", grpc: Code.InvalidArgument },
  upstream_error: { status: 502, wire: "upstream_error", grpc: Code.Unavailable },
  upstream_timeout: { status: 504, wire: "upstream_timeout", grpc: Code.DeadlineExceeded },
  internal: { status: 500, wire: "internal", grpc: Code.Internal },
};

/** The HTTP status of an error: the table's, except a replica's refusal, which keeps the replica's own 4xx. */
export function httpStatusOf(error: { code: ErrorCode; details?: ErrorDetails | undefined }): number {
  const status = error.details?.status;
  if (error.code === "upstream_refused" && typeof status === "number" && status >= 400 && status < 500)
    return status;
  return errorTable[error.code].status;
}
