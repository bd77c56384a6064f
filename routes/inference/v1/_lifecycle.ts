// What the routes that run the inference lifecycle share: the request's part of the lifecycle's
// input (the answer is rendered by server/http/inference-answer.ts).
import { bearerOf } from "#server/http/gateway.ts";
import type { RequestContext } from "#services/context.ts";
import type { AnswerMeta } from "#services/inference/answer-meta.ts";
import type { CacheDirective } from "#services/inference/response-cache/cache.ts";

export function lifecycleInput(ctx: RequestContext, request: Request) {
  const meta: AnswerMeta = {};
  return {
    apiKey: bearerOf(request),
    requestId: ctx.requestId,
    signal: request.signal,
    // Filled by the lifecycle; server/http/inference-answer.ts renders it into the response's headers.
    meta,
    // An incoming `traceparent` continues the caller's trace.
    incoming: request.headers,
    cacheDirective: cacheDirectiveOf(request.headers.get("cache-control")),
  };
}

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

/**
 * The lifecycle's input for Anthropic's API: its clients send the key as x-api-key; Claude Code with
 * ANTHROPIC_AUTH_TOKEN as a bearer token.
 */
export function anthropicLifecycleInput(ctx: RequestContext, request: Request) {
  const input = lifecycleInput(ctx, request);
  return { ...input, apiKey: request.headers.get("x-api-key")?.trim() || input.apiKey };
}
