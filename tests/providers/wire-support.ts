// Drives a wire adapter (adapters/upstream/wire/) as the gateway does: the OpenAI-shaped body becomes the
// upstream's request, sent with fetch, and the upstream's answer comes back OpenAI-shaped. `serveAdapter`
// puts one adapter behind a tiny Bun server speaking OpenAI's API, for real OpenAI clients to call.
import { EventSourceParserStream } from "eventsource-parser/stream";
import { WireRefusal } from "#adapters/upstream/wire/openai-side.ts";
import type { OpenAiPath, UpstreamTarget, WireAdapter } from "#adapters/upstream/wire/wire.ts";

export async function exchange(
  adapter: WireAdapter,
  target: UpstreamTarget,
  path: OpenAiPath,
  body: object,
  stream = false,
): Promise<Response> {
  const request = adapter.request(target, path, JSON.stringify(body), stream);
  const upstream = await fetch(request.url, { method: "POST", headers: request.headers, body: request.body });
  return adapter.response(upstream, path, stream, target);
}

export interface Streamed {
  /** Each event's data, parsed, `[DONE]` left out. */
  events: unknown[];
  done: boolean;
  contentType: string | null;
}

export async function streamed(response: Response): Promise<Streamed> {
  if (!response.body) throw new Error("no body");
  const reader = response.body
    .pipeThrough(new TextDecoderStream())
    .pipeThrough(new EventSourceParserStream())
    .getReader();
  const events: unknown[] = [];
  let done = false;
  for (let read = await reader.read(); !read.done; read = await reader.read()) {
    if (read.value.data === "[DONE]") done = true;
    else events.push(JSON.parse(read.value.data));
  }
  return { events, done, contentType: response.headers.get("content-type") };
}

export interface AdapterServer {
  baseUrl: string;
  stop(): void;
}

const paths: readonly OpenAiPath[] = ["/v1/chat/completions", "/v1/embeddings"];
const isPath = (path: string): path is OpenAiPath => paths.some((p) => p === path);

/** OpenAI's API at `${baseUrl}` (…/v1), answered by the adapter in front of `target`. */
export function serveAdapter(adapter: WireAdapter, target: UpstreamTarget): AdapterServer {
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      const path = new URL(req.url).pathname;
      if (req.method !== "POST" || !isPath(path)) return new Response("not found", { status: 404 });
      const body: { stream?: boolean } = await req.json();
      try {
        return await exchange(adapter, target, path, body, body.stream === true);
      } catch (error) {
        if (error instanceof WireRefusal) return Response.json(error.body, { status: error.status });
        throw error;
      }
    },
  });
  return { baseUrl: `http://127.0.0.1:${server.port}/v1`, stop: () => server.stop(true) };
}
