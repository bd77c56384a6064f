// What the routes that run the inference lifecycle share: the request's part of the lifecycle's
// input, and the answer as JSON or as Server-Sent Events with the headers the lifecycle set.
import { bearerOf } from "#server/http/gateway.ts";
import type { RequestContext } from "#services/context.ts";

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
});

/** Anthropic's clients send the key as x-api-key; Claude Code with ANTHROPIC_AUTH_TOKEN as a bearer token. */
export const anthropicKeyOf = (request: Request, bearer: string | undefined) =>
  request.headers.get("x-api-key")?.trim() || bearer;

export function answer<Body>(
  result: { kind: "json"; body: Body } | { kind: "stream"; stream: ReadableStream<Uint8Array> },
  headers: Record<string, string | number>,
): Body | Response {
  if (result.kind === "json") return result.body;
  const responseHeaders = new Headers({
    "content-type": "text/event-stream",
    "cache-control": "no-cache",
    connection: "keep-alive",
  });
  for (const [name, value] of Object.entries(headers)) responseHeaders.set(name, String(value));
  return new Response(result.stream, { headers: responseHeaders });
}
