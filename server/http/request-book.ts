// What a gateway notes of each request while it is answered: its id (X-Request-Id, or one made
// here), when it started, and at the end one metric observation and one JSON log line. A streamed
// answer is measured to its last byte (or the client leaving), as LLM answers take seconds.

import type { Logger } from "#services/context.ts";
import type { HttpMetrics } from "./metrics.ts";

interface RequestMeta {
  id: string;
  start: number;
  /** A streamed answer: its metrics are taken when the last byte has gone, not at the headers. */
  streaming?: boolean;
  /** The request as the server received it, when a copy (its body read ahead) stands for it. */
  received?: Request;
}

let sequence = 0;
const processTag = crypto.randomUUID().slice(0, 8);
export const newRequestId = () => `req_${processTag}${(++sequence).toString(36)}`;

export type RequestBook = ReturnType<typeof requestBook>;

export function requestBook(log: Logger, metrics: HttpMetrics) {
  const meta = new WeakMap<Request, RequestMeta>();
  const record = (request: Request, template: string, status: number) => {
    const m = meta.get(request);
    const seconds = m ? (performance.now() - m.start) / 1000 : 0;
    metrics.observe(request.method, template, status, seconds);
    log.info("request", {
      request_id: m?.id,
      method: request.method,
      route: template,
      status,
      latency_ms: Math.round(seconds * 100000) / 100,
    });
  };
  return {
    /** Notes the request's start; returns its id. */
    open(request: Request): string {
      const id = request.headers.get("x-request-id")?.slice(0, 128) || newRequestId();
      meta.set(request, { id, start: performance.now() });
      return id;
    },
    idOf: (request: Request): string | undefined => meta.get(request)?.id,
    /** The copy of a request (its body read ahead) is the same request in the book. */
    sameAs(copy: Request, original: Request): void {
      const m = meta.get(original) as RequestMeta;
      m.received = original;
      meta.set(copy, m);
    },
    /** The request the server received (its socket's address is known by that object only). */
    receivedOf: (request: Request): Request => meta.get(request)?.received ?? request,
    /** The answer has gone (a streamed one is recorded when its stream ends). */
    answered(request: Request, template: string, status: number): void {
      if (meta.get(request)?.streaming) return;
      record(request, template, status);
    },
    /** An event stream is measured to its end (or the client leaving), as LLM answers take seconds. */
    measuredToEnd(response: Response, request: Request, template: string): Response {
      const m = meta.get(request);
      if (!m || !response.body || !response.headers.get("content-type")?.startsWith("text/event-stream"))
        return response;
      m.streaming = true;
      const body = observeEnd(response.body, () => record(request, template, response.status));
      return new Response(body, { status: response.status, headers: response.headers });
    },
  };
}

/** The same bytes, and `onEnd` once when the stream is done, failed or cancelled. */
function observeEnd(body: ReadableStream<Uint8Array>, onEnd: () => void): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    onEnd();
  };
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (done) {
          controller.close();
          end();
        } else controller.enqueue(value);
      } catch (error) {
        end();
        controller.error(error);
      }
    },
    cancel(reason) {
      end();
      return reader.cancel(reason);
    },
  });
}
