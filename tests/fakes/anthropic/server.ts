// A local stand-in for Anthropic's Messages API (POST /v1/messages, GET /v1/models; anthropic-version
// 2023-06-01): it checks the `x-api-key` and the model it receives, checks every request against the
// SDK's published request type and every answer it gives against the SDK's answer types (the pinned
// JSON Schema, tests/inference/anthropic/anthropic-api.schema.json), and answers in Anthropic's framing:
// a Message, or SSE events (message_start, content_block_start/delta/stop with text_delta and
// input_json_delta, message_delta, message_stop, ping), errors as {type: "error", error: {type, message}}.
// What it answers follows from the request, so tests can ask for each case:
// - tools offered and tool_choice any/tool, or "weather" in the last user turn: a tool_use of the named
//   (else the first) tool with {city: "Paris", unit: "celsius"}, stop_reason tool_use;
// - a tool_result in the last turn: "It is sunny in Paris.";
// - output_config.format: the JSON text {"answer":"yes"};
// - else "You said: <last user text>", cut at a stop sequence (stop_sequence) or at max_tokens words.
// `failNext` answers the next request with an error; `failStreamNext` sends an error event mid-stream.
import Ajv from "ajv";
import pinned from "../../inference/anthropic/anthropic-api.schema.json" with { type: "json" };

export interface FakeAnthropicFailure {
  status: number;
  type: string;
  message: string;
}

export interface FakeAnthropicRequest {
  headers: Record<string, string>;
  body: Record<string, unknown>;
}

export interface FakeAnthropic {
  baseUrl: string;
  apiKey: string;
  model: string;
  /** Every POST /v1/messages received, in order. */
  requests: FakeAnthropicRequest[];
  /** Answer the next request with this error (then clear it). */
  failNext: FakeAnthropicFailure | undefined;
  /** Send an overloaded_error event after message_start in the next stream. */
  failStreamNext: boolean;
  /** cache_read_input_tokens reported with every answer. */
  cacheRead: number;
  /** Schema problems found in what was received or sent; a test expects none. */
  problems: string[];
  stop(): void;
}

type Shape =
  | "PinnedMessage"
  | "PinnedRawMessageStreamEvent"
  | "PinnedErrorResponse"
  | "PinnedMessageCreateParams";
const ajv = new Ajv({ strict: false, allErrors: true });
ajv.addSchema(pinned, "anthropic");
function problemsOf(shape: Shape, value: unknown): string[] {
  const validate = ajv.getSchema(`anthropic#/definitions/${shape}`);
  if (!validate) return [`no ${shape} in the pinned schema`];
  return validate(value) ? [] : (validate.errors ?? []).map((e) => `${shape}${e.instancePath} ${e.message}`);
}

interface Block {
  type: string;
  text?: string;
  content?: unknown;
  name?: string;
}
interface Turn {
  role: string;
  content: string | Block[];
}
interface Tool {
  name: string;
}
interface Received {
  model: string;
  max_tokens: number;
  messages: Turn[];
  system?: string;
  tools?: Tool[];
  tool_choice?: { type: string; name?: string };
  stop_sequences?: string[];
  stream?: boolean;
  output_config?: { format?: { type: string } };
}

type Answer =
  | { kind: "text"; text: string; stop: "end_turn" | "max_tokens" | "stop_sequence"; sequence: string | null }
  | { kind: "tool"; name: string; input: Record<string, string> };

const lastTurn = (body: Received) => body.messages.at(-1);
const textOfTurn = (turn: Turn | undefined) =>
  typeof turn?.content === "string"
    ? turn.content
    : (turn?.content ?? [])
        .filter((b) => b.type === "text")
        .map((b) => b.text ?? "")
        .join(" ");

function answerOf(body: Received): Answer {
  const last = lastTurn(body);
  const answeredTool = Array.isArray(last?.content) && last.content.some((b) => b.type === "tool_result");
  const choice = body.tool_choice?.type;
  const tools = body.tools ?? [];
  if (!answeredTool && tools.length > 0 && choice !== "none") {
    const forced = choice === "any" || choice === "tool";
    if (forced || /weather/i.test(textOfTurn(last))) {
      const name = body.tool_choice?.name ?? tools[0]?.name ?? "";
      return { kind: "tool", name, input: { city: "Paris", unit: "celsius" } };
    }
  }
  let text = answeredTool
    ? "It is sunny in Paris."
    : body.output_config?.format
      ? JSON.stringify({ answer: "yes" })
      : `You said: ${textOfTurn(last)}`;
  for (const sequence of body.stop_sequences ?? []) {
    const at = text.indexOf(sequence);
    if (at >= 0) return { kind: "text", text: text.slice(0, at), stop: "stop_sequence", sequence };
  }
  const words = text.split(" ");
  if (words.length > body.max_tokens) {
    text = words.slice(0, body.max_tokens).join(" ");
    return { kind: "text", text, stop: "max_tokens", sequence: null };
  }
  return { kind: "text", text, stop: "end_turn", sequence: null };
}

const countWords = (body: Received) =>
  body.messages.reduce((n, turn) => n + textOfTurn(turn).split(/\s+/).filter(Boolean).length, 0) +
  (body.system ?? "").split(/\s+/).filter(Boolean).length;

export function startFakeAnthropic(options: { model?: string } = {}): FakeAnthropic {
  const fake: FakeAnthropic = {
    baseUrl: "",
    apiKey: `sk-ant-fake-${crypto.randomUUID()}`,
    model: options.model ?? "claude-sonnet-4-5",
    requests: [],
    failNext: undefined,
    failStreamNext: false,
    cacheRead: 0,
    problems: [],
    stop: () => server.stop(true),
  };

  const send = (shape: Shape, value: unknown, status = 200) => {
    fake.problems.push(...problemsOf(shape, value));
    return Response.json(value, { status });
  };
  const error = (status: number, type: string, message: string) =>
    send(
      "PinnedErrorResponse",
      { type: "error", error: { type, message }, request_id: `req_${crypto.randomUUID()}` },
      status,
    );

  const usage = (input: number, output: number) => ({
    input_tokens: input,
    output_tokens: output,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: fake.cacheRead,
    cache_creation: null,
    inference_geo: null,
    output_tokens_details: null,
    server_tool_use: null,
    service_tier: "standard",
    speed: null,
  });

  const message = (body: Received, answer: Answer, id: string) => ({
    id,
    type: "message",
    role: "assistant",
    model: body.model,
    content:
      answer.kind === "text"
        ? [{ type: "text", text: answer.text, citations: null }]
        : [
            {
              type: "tool_use",
              id: "toolu_fake01",
              name: answer.name,
              input: answer.input,
              caller: { type: "direct" },
            },
          ],
    stop_reason: answer.kind === "text" ? answer.stop : "tool_use",
    stop_sequence: answer.kind === "text" ? answer.sequence : null,
    stop_details: null,
    container: null,
    diagnostics: null,
    usage: usage(countWords(body), answer.kind === "text" ? answer.text.split(" ").length : 12),
  });

  function stream(body: Received, answer: Answer, id: string): Response {
    const events: Record<string, unknown>[] = [];
    const start = message(body, answer, id);
    events.push({
      type: "message_start",
      message: {
        ...start,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: usage(countWords(body), 1),
      },
    });
    if (fake.failStreamNext) {
      fake.failStreamNext = false;
      events.push({
        type: "error",
        error: { type: "overloaded_error", message: "Overloaded" },
        request_id: null,
      });
    } else {
      events.push({ type: "ping" });
      if (answer.kind === "text") {
        events.push({
          type: "content_block_start",
          index: 0,
          content_block: { type: "text", text: "", citations: null },
        });
        for (const [i, word] of answer.text.split(" ").entries()) {
          events.push({
            type: "content_block_delta",
            index: 0,
            delta: { type: "text_delta", text: i === 0 ? word : ` ${word}` },
          });
        }
      } else {
        events.push({
          type: "content_block_start",
          index: 0,
          content_block: {
            type: "tool_use",
            id: "toolu_fake01",
            name: answer.name,
            input: {},
            caller: { type: "direct" },
          },
        });
        const json = JSON.stringify(answer.input);
        for (const piece of [json.slice(0, 5), json.slice(5, 17), json.slice(17)]) {
          events.push({
            type: "content_block_delta",
            index: 0,
            delta: { type: "input_json_delta", partial_json: piece },
          });
        }
      }
      events.push({ type: "content_block_stop", index: 0 });
      events.push({
        type: "message_delta",
        delta: {
          stop_reason: start.stop_reason,
          stop_sequence: start.stop_sequence,
          stop_details: null,
          container: null,
        },
        usage: {
          input_tokens: start.usage.input_tokens,
          output_tokens: start.usage.output_tokens,
          cache_creation_input_tokens: 0,
          cache_read_input_tokens: fake.cacheRead,
          output_tokens_details: null,
          server_tool_use: null,
        },
      });
      events.push({ type: "message_stop" });
    }
    for (const event of events) {
      // The SDK's stream event type leaves out ping and error (its stream reader handles them apart).
      if (event.type === "ping") continue;
      fake.problems.push(
        ...problemsOf(event.type === "error" ? "PinnedErrorResponse" : "PinnedRawMessageStreamEvent", event),
      );
    }
    const text = events.map((e) => `event: ${String(e.type)}\ndata: ${JSON.stringify(e)}\n\n`).join("");
    return new Response(text, { headers: { "content-type": "text/event-stream" } });
  }

  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      const url = new URL(req.url);
      if (req.headers.get("x-api-key") !== fake.apiKey) {
        return error(401, "authentication_error", "invalid x-api-key");
      }
      if (!req.headers.get("anthropic-version")) {
        return error(400, "invalid_request_error", "anthropic-version: header is required");
      }
      if (req.method === "GET" && url.pathname === "/v1/models") {
        const created = "2025-09-29T00:00:00Z";
        return Response.json({
          data: [{ type: "model", id: fake.model, display_name: fake.model, created_at: created }],
          has_more: false,
          first_id: fake.model,
          last_id: fake.model,
        });
      }
      if (req.method !== "POST" || url.pathname !== "/v1/messages") {
        return error(404, "not_found_error", `${req.method} ${url.pathname} not found`);
      }
      const body: Received = await req.json();
      fake.requests.push({ headers: Object.fromEntries(req.headers), body: { ...body } });
      fake.problems.push(...problemsOf("PinnedMessageCreateParams", body));
      if (body.model !== fake.model) return error(404, "not_found_error", `model: ${body.model}`);
      const failure = fake.failNext;
      if (failure) {
        fake.failNext = undefined;
        return error(failure.status, failure.type, failure.message);
      }
      const id = `msg_fake${crypto.randomUUID().replaceAll("-", "").slice(0, 20)}`;
      const answer = answerOf(body);
      return body.stream ? stream(body, answer, id) : send("PinnedMessage", message(body, answer, id));
    },
  });
  fake.baseUrl = `http://127.0.0.1:${server.port}`;
  return fake;
}
