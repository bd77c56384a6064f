// The error statuses of every route that runs the inference lifecycle (services/inference/admission.ts
// and the upstream call), for the OpenAPI document: each is documented with OpenAI's error body.
// 400 (validation, guardrails, a replica's refusal), 413 and 500 are added by the gateway itself.
import type { ErrorStatus } from "#server/http/route.ts";

export const lifecycleErrors: readonly ErrorStatus[] = [401, 403, 404, 429, 502, 503, 504];
