// What the routes that run the inference lifecycle share: the request's part of the lifecycle's
// input, and the answer as JSON or as Server-Sent Events with the headers the lifecycle set.
import type { InferenceAnswer } from "#contracts/internal/inference-answer.ts";
import { bearerOf } from "#server/http/gateway.ts";
import type { RequestContext } from "#services/context.ts";
import type { CacheDirective } from "#services/inference/response-cache/cache.ts";

export const lifecycleInput = (
  ctx: RequestContext,
  request: Request,
  set: { headers: Record<string, string | number> },
) => ({
  apiKey: bearerOf(request),
  requestId: ctx.requestId,
  signal: request.signal,
  headers: set.headers,
  // An incoming `traceparent` continues the caller's trace.
  incoming: request.headers,
  cacheDirective: cacheDirectiveOf(request.headers.get("cache-control")),
});

/**
 * The caller's Cache-Control as the response cache reads it (RFC 9111 request directives): `no-cache`
 * (compute afresh; the answer is still kept), `no-store` (compute and keep nothing), `max-age=N` (an
 * answer up to N seconds old will do: this also opts a request without `temperature: 0` in).
 */
export function cacheDirectiveOf(header: string | null): CacheDirective | undefined {
  if (!header) return undefined;
  const directive: CacheDirective = {};
  for (const part of header.toLowerCase().split(",")) {
    const [name = "", value] = part.trim().split("=", 2);
    if (name === "no-cache") directive.noCache = true;
    else if (name === "no-store") directive.noStore = true;
    else if (name === "max-age" && value !== undefined && /^\d{1,10}$/.test(value.replace(/"/g, "")))
      directive.maxAgeS = Number(value.replace(/"/g, ""));
  }
  return directive;
}

/** Anthropic's clients send the key as x-api-key; Claude Code with ANTHROPIC_AUTH_TOKEN as a bearer token. */
export const anthropicKeyOf = (request: Request, bearer: string | undefined) =>
  request.headers.get("x-api-key")?.trim() || bearer;

export function answer<Body>(
  result: InferenceAnswer<Body>,
  headers: Record<string, string | number>,
): Body | Response {
  // Where a cache policy applies: whether the answer came from the response cache.
  if (result.cache) headers["x-cache"] = result.cache;
  if (result.kind === "json") return result.body;
  const responseHeaders = new Headers({
    "content-type": "text/event-stream",
    "cache-control": "no-cache",
    connection: "keep-alive",
  });
  for (const [name, value] of Object.entries(headers)) responseHeaders.set(name, String(value));
  return new Response(result.stream, { headers: responseHeaders });
}
