// A fixed-response OpenAI-compatible upstream: what the benchmark puts behind the gateways, and what
// the inference tests use as a replica whose behaviour they choose. `bun scripts/openai-stub.ts
// [port]` runs it alone (the benchmark's wrk target); tests start it in process with startOpenAiStub.
import type { Server } from "bun";
import type { ToolCallDelta } from "#contracts/openai/chat.ts";
import { at } from "./checked.ts";

export type StubBehaviour =
  /** Answers (JSON, or SSE with `chunks` deltas `gapMs` apart). */
  | "ok"
  /** HTTP 500. */
  | "fail"
  /** Streams two deltas, then the connection breaks. */
  | "die"
  /** Accepts and never answers. */
  | "hang"
  /** HTTP 400 with OpenAI's error body, as a replica refusing an image part it cannot read. */
  | "refuse"
  /** HTTP 422 with a body that is not JSON. */
  | "refuse-text"
  /** HTTP 429 with OpenAI's rate-limit error, as a replica (or a provider) over its own limit. */
  | "busy";

export interface OpenAiStub {
  url: string;
  /** OpenAI base URL (…/v1), what replicas advertise. */
  baseUrl: string;
  behaviour: StubBehaviour;
  /** false: every path answers 503, as a replica that is down. */
  up: boolean;
  chunks: number;
  gapMs: number;
  /** The answer's deltas, when a test chooses them (else "Hello", " t1", " t2"... `chunks` of them). */
  deltas: string[] | undefined;
  /** Tool calls to answer instead of text (JSON: message.tool_calls; SSE: delta.tool_calls chunks). */
  toolCalls: { name: string; arguments: string }[] | undefined;
  /**
   * Prompt tokens the stub says it reused, as an engine with a prefix cache reports them
   * (`usage.prompt_tokens_details.cached_tokens`); undefined: the field is left out.
   */
  cachedTokens: number | undefined;
  /**
   * Completion tokens the JSON answer's usage reports, as a model writing until its context is full
   * would (with 12 prompt tokens); undefined: 5.
   */
  completionTokens: number | undefined;
  /** Chat requests that reached the stub, answered or not (`up` false included). */
  chatCalls: number;
  /** Bodies of the chat requests received, newest last. */
  received: ReceivedBody[];
  /** The W3C `traceparent` header of each request received (null when absent), newest last. */
  traceparents: (string | null)[];
  /** Requests aborted by the caller while being answered. */
  aborted: number;
  stop(): void;
}

/**
 * A chat request's body as the stub received it, kept whole for the tests to read: any JSON object (the
 * stub itself reads model, stream and stream_options).
 */
export interface ReceivedBody {
  model?: unknown;
  stream?: unknown;
  stream_options?: unknown;
  [field: string]: unknown;
}

const isBody = (value: unknown): value is ReceivedBody =>
  typeof value === "object" && value !== null && !Array.isArray(value);

const encoder = new TextEncoder();
const answer = "Hello from the stub.";

function completion(model: string, content = answer) {
  return {
    id: "chatcmpl-stub",
    object: "chat.completion",
    created: 1_700_000_000,
    model,
    choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }],
    usage: { prompt_tokens: 12, completion_tokens: 5, total_tokens: 17 },
  };
}
/** What the "refuse" behaviour answers: llama.cpp's refusal of an image part, in OpenAI's shape. */
export const refusal = {
  message: "this model cannot read image parts",
  type: "invalid_request_error",
  param: "messages[0].content[1]",
  code: "unsupported_content",
};

// The benchmark's hot path answers with the same bytes every time.
const fixedJson = JSON.stringify(completion("stub"));

const event = (data: unknown) => encoder.encode(`data: ${JSON.stringify(data)}\n\n`);
const delta = (model: string, content: string, finish: string | null = null) => ({
  id: "chatcmpl-stub",
  object: "chat.completion.chunk",
  created: 1_700_000_000,
  model,
  choices: [{ index: 0, delta: content ? { content } : {}, finish_reason: finish }],
});

/** An answer of tool calls, as OpenAI sends one: streamed, the id and name first, then the arguments. */
function toolCallAnswer(
  model: string,
  calls: { name: string; arguments: string }[],
  stream: boolean,
): Response {
  const ids = calls.map((_, i) => `call_stub${i}`);
  if (!stream) {
    const answer = completion(model);
    return Response.json({
      ...answer,
      choices: [
        {
          index: 0,
          message: {
            role: "assistant",
            content: null,
            tool_calls: calls.map((c, i) => ({ id: ids[i], type: "function", function: c })),
          },
          finish_reason: "tool_calls",
        },
      ],
    });
  }
  const data = (value: unknown) => `data: ${JSON.stringify(value)}\n\n`;
  const chunk = (toolDelta: { tool_calls?: ToolCallDelta[] }, finish: string | null = null) =>
    data({ ...delta(model, ""), choices: [{ index: 0, delta: toolDelta, finish_reason: finish }] });
  let text = "";
  calls.forEach((c, index) => {
    text += chunk({
      tool_calls: [{ index, id: ids[index], type: "function", function: { name: c.name, arguments: "" } }],
    });
    const half = Math.ceil(c.arguments.length / 2);
    for (const piece of [c.arguments.slice(0, half), c.arguments.slice(half)]) {
      text += chunk({ tool_calls: [{ index, function: { arguments: piece } }] });
    }
  });
  text += chunk({}, "tool_calls");
  text += data({
    ...delta(model, ""),
    choices: [],
    usage: { prompt_tokens: 12, completion_tokens: 7, total_tokens: 19 },
  });
  return new Response(`${text}data: [DONE]\n\n`, { headers: { "content-type": "text/event-stream" } });
}

export function startOpenAiStub(
  options: {
    port?: number;
    hostname?: string;
    chunks?: number;
    gapMs?: number;
    modelId?: string;
    /** Every chat answer waits this long first, as a model's time to first token (bench/gateway.ts). */
    answerDelayMs?: number;
  } = {},
): OpenAiStub {
  const state: Omit<OpenAiStub, "url" | "baseUrl" | "stop"> = {
    behaviour: "ok",
    up: true,
    chunks: options.chunks ?? 5,
    gapMs: options.gapMs ?? 0,
    deltas: undefined,
    toolCalls: undefined,
    cachedTokens: undefined,
    completionTokens: undefined,
    chatCalls: 0,
    received: [],
    traceparents: [],
    aborted: 0,
  };
  const server: Server<unknown> = Bun.serve({
    port: options.port ?? 0,
    hostname: options.hostname ?? "127.0.0.1",
    idleTimeout: 0,
    async fetch(req) {
      const path = new URL(req.url).pathname;
      if (path === "/v1/chat/completions") state.chatCalls++;
      if (!state.up) return new Response("down", { status: 503 });
      if (path.startsWith("/v1/")) {
        if (state.traceparents.length >= 1000) state.traceparents.shift();
        state.traceparents.push(req.headers.get("traceparent"));
      }
      if (path === "/health") return Response.json({ status: "ok" });
      if (path === "/v1/models")
        return Response.json({ object: "list", data: [{ id: options.modelId ?? "stub", object: "model" }] });
      if (path !== "/v1/chat/completions") return new Response("not found", { status: 404 });
      const json: unknown = await req.json();
      const body: ReceivedBody = isBody(json) ? json : {};
      if (state.received.length >= 1000) state.received.shift();
      state.received.push(body);
      const model = String(body.model ?? "stub");
      if (options.answerDelayMs) await Bun.sleep(options.answerDelayMs);
      switch (state.behaviour) {
        case "fail":
          return Response.json({ error: { message: "stub failure" } }, { status: 500 });
        case "refuse":
          return Response.json({ error: refusal }, { status: 400 });
        case "refuse-text":
          return new Response("unprocessable", { status: 422, headers: { "content-type": "text/plain" } });
        case "busy":
          return Response.json(
            { error: { message: "stub over its limit", type: "requests", code: "rate_limit_exceeded" } },
            { status: 429, headers: { "retry-after": "1" } },
          );
        case "hang":
          await new Promise<void>((resolve) => req.signal.addEventListener("abort", () => resolve()));
          state.aborted++;
          return new Response(null, { status: 499 });
      }
      if (state.toolCalls) return toolCallAnswer(model, state.toolCalls, body.stream === true);
      const cached =
        state.cachedTokens === undefined
          ? {}
          : { prompt_tokens_details: { cached_tokens: state.cachedTokens } };
      if (body.stream !== true) {
        const answered = completion(model, state.deltas?.join(""));
        if (state.completionTokens !== undefined) {
          answered.usage = {
            prompt_tokens: 12,
            completion_tokens: state.completionTokens,
            total_tokens: 12 + state.completionTokens,
          };
        }
        const json =
          state.cachedTokens !== undefined || state.completionTokens !== undefined
            ? JSON.stringify({ ...answered, usage: { ...answered.usage, ...cached } })
            : state.deltas
              ? JSON.stringify(answered)
              : model === "stub"
                ? fixedJson
                : JSON.stringify(answered);
        return new Response(json, {
          headers: { "content-type": "application/json" },
        });
      }
      const streamOptions = body.stream_options;
      const includeUsage = isBody(streamOptions) ? streamOptions.include_usage : undefined;
      const { gapMs, behaviour } = state;
      const deltas =
        state.deltas ?? Array.from({ length: state.chunks }, (_, i) => (i === 0 ? "Hello" : ` t${i}`));
      const chunks = deltas.length;
      return new Response(
        new ReadableStream({
          async start(controller) {
            try {
              for (let i = 0; i < chunks; i++) {
                if (behaviour === "die" && i === 2) {
                  // Let the first deltas reach the client, so the break is mid-stream.
                  await Bun.sleep(50);
                  controller.error(new Error("the replica crashed"));
                  return;
                }
                controller.enqueue(event(delta(model, at(deltas, i))));
                if (gapMs) await Bun.sleep(gapMs);
                if (req.signal.aborted) {
                  state.aborted++;
                  controller.close();
                  return;
                }
              }
              controller.enqueue(event(delta(model, "", "stop")));
              if (includeUsage) {
                controller.enqueue(
                  event({
                    ...delta(model, ""),
                    choices: [],
                    usage: {
                      prompt_tokens: 12,
                      completion_tokens: chunks,
                      total_tokens: 12 + chunks,
                      ...cached,
                    },
                  }),
                );
              }
              controller.enqueue(encoder.encode("data: [DONE]\n\n"));
              controller.close();
            } catch {
              // The client went away mid-stream.
            }
          },
        }),
        { headers: { "content-type": "text/event-stream", "cache-control": "no-cache" } },
      );
    },
  });
  const url = `http://${server.hostname}:${server.port}`;
  return Object.assign(state, {
    url,
    baseUrl: `${url}/v1`,
    stop: () => server.stop(true),
  });
}

if (import.meta.main) {
  // `bun scripts/openai-stub.ts [port] [chunks] [gapMs] [answerDelayMs]`: streams send `chunks` deltas
  // `gapMs` apart; every answer starts `answerDelayMs` after the request.
  const [port = "9999", chunks = "5", gapMs = "0", answerDelayMs = "0"] = process.argv.slice(2);
  const stub = startOpenAiStub({
    port: Number(port),
    chunks: Number(chunks),
    gapMs: Number(gapMs),
    answerDelayMs: Number(answerDelayMs),
  });
  console.log(JSON.stringify({ msg: "stub ready", url: stub.url }));
}
