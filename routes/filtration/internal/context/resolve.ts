import { ResolveAnswer, ResolveRequest } from "#contracts/internal/resolve.ts";
import { route } from "#server/http/route.ts";
import { resolveInferenceContext } from "#services/inference-context/resolve.ts";
import { resolutionToWire } from "#services/inference-context/resolve-wire.ts";

export const POST = route({
  access: "internal",
  summary: "Resolve an API key and a model (deployment name) into an inference context",
  description:
    "`{valid: false, reason}` when it does not resolve: `invalid_api_key` (unknown, revoked or expired key), " +
    "`model_not_found`, `model_not_allowed` (the key may not call it) or `deployment_unavailable` (stopped, " +
    "and no fallback can answer for it). Only " +
    "holders of the internal key may ask, and the inference gateway needs the reason for its error codes.",
  body: ResolveRequest,
  response: ResolveAnswer,
  handler: async ({ ctx, body }) =>
    resolutionToWire(await resolveInferenceContext(ctx, body.api_key, body.model)),
});
