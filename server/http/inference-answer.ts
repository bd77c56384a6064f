// The one place an inference answer's metadata (services/inference/answer-meta.ts) becomes HTTP: the
// OpenAI rate-limit headers, Retry-After, x-served-by and x-cache, on an answer and on a refusal alike,
// for chat, completions, responses, messages, embeddings and the dashboard's playground; and a streamed
// answer framed as Server-Sent Events with those headers.
import type { AnswerMeta } from "#services/inference/answer-meta.ts";

type HeaderSet = Record<string, string | number>;

/**
 * Writes the metadata's headers into the response's (Elysia's `set.headers`). x-cache goes only on an
 * answer: a request refused after the cache was asked says nothing of it.
 */
export function renderAnswerMeta(meta: AnswerMeta, headers: HeaderSet, answered: boolean): void {
  const { rateLimit } = meta;
  if (rateLimit?.requests) {
    headers["x-ratelimit-limit-requests"] = rateLimit.requests.limit;
    headers["x-ratelimit-remaining-requests"] = rateLimit.requests.remaining;
  }
  if (rateLimit?.tokens) {
    headers["x-ratelimit-limit-tokens"] = rateLimit.tokens.limit;
    headers["x-ratelimit-remaining-tokens"] = rateLimit.tokens.remaining;
  }
  if (meta.retryAfterS !== undefined) headers["retry-after"] = meta.retryAfterS;
  if (meta.servedBy !== undefined) headers["x-served-by"] = meta.servedBy;
  if (answered && meta.cache) headers["x-cache"] = meta.cache;
}

/** Awaits a lifecycle whose answer is a plain body (embeddings, token counts), its metadata rendered. */
export async function withAnswerMeta<Body>(
  pending: Promise<Body>,
  meta: AnswerMeta,
  headers: HeaderSet,
): Promise<Body> {
  let body: Body;
  try {
    body = await pending;
  } catch (error) {
    renderAnswerMeta(meta, headers, false);
    throw error;
  }
  renderAnswerMeta(meta, headers, true);
  return body;
}

export type LifecycleResult<Body> =
  | { kind: "json"; body: Body }
  | { kind: "stream"; stream: ReadableStream<Uint8Array> };

/**
 * Awaits a lifecycle and answers with it: its metadata in the headers (a refusal's too, before the
 * error handler renders it), the body as JSON or as an SSE response carrying the same headers.
 */
export async function answerWith<Body>(
  pending: Promise<LifecycleResult<Body>>,
  meta: AnswerMeta,
  headers: HeaderSet,
  streamHeaders: HeaderSet = eventStream,
): Promise<Body | Response> {
  const result = await withAnswerMeta(pending, meta, headers);
  if (result.kind === "json") return result.body;
  return new Response(result.stream, { headers: sseHeaders(headers, streamHeaders) });
}

const eventStream: HeaderSet = {
  "content-type": "text/event-stream",
  "cache-control": "no-cache",
  connection: "keep-alive",
};

/** The response's headers under the event stream's own. */
export function sseHeaders(headers: HeaderSet, streamHeaders: HeaderSet): Headers {
  const out = new Headers();
  for (const [name, value] of Object.entries(streamHeaders)) out.set(name, String(value));
  for (const [name, value] of Object.entries(headers)) out.set(name, String(value));
  return out;
}
