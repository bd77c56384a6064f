// Every answer of the OpenAI-shaped endpoints, JSON bodies and each streamed event, against OpenAI's
// published OpenAPI document (pinned in tests/specs/, validated with ajv by tests/support/openai-spec.ts),
// from a real llama.cpp worker of the tiny random-weight model behind the gateway. Random weights say
// nothing sensible: what is checked is the shape of everything the wire carries.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { EventSourceParserStream } from "eventsource-parser/stream";
import type OpenAI from "openai";
import type { OpenAIError } from "#contracts/openai/error.ts";
import { weather } from "../engines/worker-support.ts";
import { type BodyOf, fetchJson } from "../support/json.ts";
import { type OpenAiSpec, openAiSpec } from "../support/openai-spec.ts";
import { startTinyDeployment, type TinyDeployment } from "./tiny-deployment.ts";

let tiny: TinyDeployment;
let spec: OpenAiSpec;

beforeAll(async () => {
  [tiny, spec] = await Promise.all([startTinyDeployment(), openAiSpec()]);
  spec.prepare([
    "POST /chat/completions",
    "POST /completions",
    "POST /responses",
    "GET /responses/{response_id}/input_items",
    "POST /embeddings",
    "GET /models",
    "GET /models/{model}",
  ]);
}, 120_000);
afterAll(() => tiny.close(), 60_000);
// The tiny model answers in milliseconds; a loaded two-core machine can still take seconds.
setDefaultTimeout(60_000);

interface Answer {
  status: number;
  body: unknown;
}

/** One request to the gateway; the body typed as `call` types it: `request<OpenAI.ChatCompletion>(...)`. */
async function request<R = unknown>(
  method: string,
  path: string,
  body?: object,
  key = tiny.apiKey,
): Promise<{ status: number; body: BodyOf<R> }> {
  const answer = await fetchJson<R>(`${tiny.baseUrl}${path}`, { method, body, token: key });
  return { status: answer.status, body: answer.body };
}

interface Event {
  /** The SSE `event:` field, when the server sent one. */
  name: string | undefined;
  data: unknown;
}

/** The events of a streamed answer, `[DONE]` left out. */
async function stream(path: string, body: object): Promise<Event[]> {
  const res = await fetch(`${tiny.baseUrl}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${tiny.apiKey}`, "content-type": "application/json" },
    body: JSON.stringify({ ...body, stream: true }),
  });
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toStartWith("text/event-stream");
  if (!res.body) throw new Error("no body");
  const reader = res.body
    .pipeThrough(new TextDecoderStream())
    .pipeThrough(new EventSourceParserStream())
    .getReader();
  const events: Event[] = [];
  for (let read = await reader.read(); !read.done; read = await reader.read()) {
    if (read.value.data === "[DONE]") continue;
    events.push({ name: read.value.event, data: JSON.parse(read.value.data) });
  }
  return events;
}

/** The answer is a 200 whose body the document's schema of `operation` accepts. */
function conforms(operation: string, answer: Answer) {
  expect({ status: answer.status, problems: spec.answer(operation, answer.body) }).toEqual({
    status: 200,
    problems: [],
  });
}

/** Every event conforms; the names of the events in order. */
function eventsConform(operation: string, events: Event[]): string[] {
  expect(events.length).toBeGreaterThan(0);
  const problems = events.flatMap((e, i) => spec.event(operation, e.data).map((p) => `event ${i}: ${p}`));
  expect(problems).toEqual([]);
  return events.map((e) => (e.data as { type?: string }).type ?? "");
}

const chat = <R = OpenAI.ChatCompletion>(body: object) =>
  request<R>("POST", "/chat/completions", { model: tiny.model, max_tokens: 8, ...body });
const hello = [{ role: "user", content: "Hello" }];
const tool = {
  type: "function",
  function: { name: "get_weather", description: "Weather", parameters: weather },
};
const verdictSchema = {
  type: "object",
  properties: { answer: { type: "string", enum: ["yes", "no"] } },
  required: ["answer"],
  additionalProperties: false,
};

describe("POST /v1/chat/completions", () => {
  test("plain", async () => {
    conforms("POST /chat/completions", await chat({ messages: hello }));
  });

  test("streamed, every chunk, with stream_options.include_usage", async () => {
    const events = await stream("/chat/completions", {
      model: tiny.model,
      max_tokens: 8,
      messages: hello,
      stream_options: { include_usage: true },
    });
    eventsConform("POST /chat/completions", events);
    const last = events.at(-1)?.data as OpenAI.ChatCompletionChunk;
    expect(last.usage?.completion_tokens).toBeGreaterThan(0);
  });

  test.each([
    ["required", "required"],
    ["auto", "auto"],
    ["named", { type: "function", function: { name: "get_weather" } }],
  ])("tools, tool_choice %s", async (_, toolChoice) => {
    const answer = await chat({ messages: hello, tools: [tool], tool_choice: toolChoice, max_tokens: 300 });
    conforms("POST /chat/completions", answer);
    if (toolChoice !== "auto") {
      const message = answer.body.choices[0]?.message;
      expect(message?.tool_calls?.[0]?.type).toBe("function");
    }
  });

  test("tools, streamed", async () => {
    const events = await stream("/chat/completions", {
      model: tiny.model,
      max_tokens: 300,
      messages: hello,
      tools: [tool],
      tool_choice: "required",
    });
    eventsConform("POST /chat/completions", events);
  });

  test("a tool-result turn", async () => {
    const messages = [
      { role: "user", content: "Weather in Paris?" },
      {
        role: "assistant",
        content: null,
        tool_calls: [
          {
            id: "call_1",
            type: "function",
            function: { name: "get_weather", arguments: '{"city":"Paris","unit":"celsius"}' },
          },
        ],
      },
      { role: "tool", tool_call_id: "call_1", content: "sunny, 21" },
    ];
    conforms("POST /chat/completions", await chat({ messages, tools: [tool] }));
  });

  test("response_format json_schema and json_object", async () => {
    const schema = await chat({
      messages: hello,
      max_tokens: 100,
      response_format: {
        type: "json_schema",
        json_schema: { name: "verdict", schema: verdictSchema, strict: true },
      },
    });
    conforms("POST /chat/completions", schema);
    const object = await chat({ messages: hello, max_tokens: 100, response_format: { type: "json_object" } });
    conforms("POST /chat/completions", object);
  });

  test("logprobs, plain and streamed", async () => {
    const answer = await chat({ messages: hello, logprobs: true, top_logprobs: 2 });
    conforms("POST /chat/completions", answer);
    expect(answer.body.choices[0]?.logprobs?.content?.length).toBeGreaterThan(0);
    eventsConform(
      "POST /chat/completions",
      await stream("/chat/completions", {
        model: tiny.model,
        max_tokens: 8,
        messages: hello,
        logprobs: true,
        top_logprobs: 2,
      }),
    );
  });
});

describe("POST /v1/completions", () => {
  test("plain and streamed (each chunk a completion object)", async () => {
    const body = { model: tiny.model, prompt: "Once upon", max_tokens: 6 };
    conforms("POST /completions", await request("POST", "/completions", body));
    const events = await stream("/completions", { ...body, stream_options: { include_usage: true } });
    // The document gives /completions no event schema, only the completion object, whose finish_reason
    // is a string; a chunk before the last of its choice has none yet (OpenAI sends null there too).
    // Everything else of every chunk must conform, and the last text chunk carries a finish_reason.
    const notYet = /\/choices\/\d+\/finish_reason .* \(value null\)$/;
    const problems = events.flatMap((e, i) =>
      spec
        .event("POST /completions", e.data)
        .filter((p) => !notYet.test(p))
        .map((p) => `chunk ${i}: ${p}`),
    );
    expect(problems).toEqual([]);
    const chunks = events.map((e) => e.data as OpenAI.Completion);
    const lastText = chunks.filter((c) => c.choices.length > 0).at(-1);
    expect(lastText?.choices[0]?.finish_reason).toMatch(/^(stop|length)$/);
    expect(chunks.at(-1)?.usage?.completion_tokens).toBeGreaterThan(0);
  });
});

describe("POST /v1/responses", () => {
  const respond = (body: object) =>
    request<OpenAI.Responses.Response>("POST", "/responses", {
      model: tiny.model,
      max_output_tokens: 8,
      ...body,
    });
  const functionTool = { type: "function", name: "get_weather", parameters: weather, strict: true };

  test("a string input, and items", async () => {
    conforms("POST /responses", await respond({ input: "Hello", instructions: "Be brief." }));
    conforms(
      "POST /responses",
      await respond({
        input: [
          { role: "developer", content: "Answer in English." },
          { type: "message", role: "user", content: [{ type: "input_text", text: "Weather?" }] },
          { type: "function_call", call_id: "call_1", name: "get_weather", arguments: '{"city":"Paris"}' },
          { type: "function_call_output", call_id: "call_1", output: "sunny" },
        ],
        tools: [functionTool],
      }),
    );
  });

  test("tools: a required function call, plain and streamed", async () => {
    const body = {
      input: "Weather in Paris?",
      tools: [functionTool],
      tool_choice: "required",
      max_output_tokens: 300,
    };
    const answer = await respond(body);
    conforms("POST /responses", answer);
    expect(answer.body.output.some((o) => o.type === "function_call")).toBe(true);
    const events = await stream("/responses", { model: tiny.model, ...body });
    const types = eventsConform("POST /responses", events);
    expect(types).toContain("response.function_call_arguments.done");
    // The `event:` line of each names its type.
    expect(events.map((e) => e.name)).toEqual(types);
  });

  test("text.format json_schema, plain and streamed; json_object", async () => {
    const body = {
      input: "Yes or no?",
      max_output_tokens: 100,
      text: { format: { type: "json_schema", name: "verdict", schema: verdictSchema, strict: true } },
    };
    conforms("POST /responses", await respond(body));
    const types = eventsConform(
      "POST /responses",
      await stream("/responses", { model: tiny.model, ...body }),
    );
    expect(types.slice(0, 2)).toEqual(["response.created", "response.in_progress"]);
    expect(types.at(-1)).toMatch(/^response\.(completed|incomplete)$/);
    conforms(
      "POST /responses",
      await respond({
        input: "Yes or no?",
        max_output_tokens: 100,
        text: { format: { type: "json_object" } },
      }),
    );
  });

  test("store, GET, input_items, previous_response_id, DELETE", async () => {
    const first = await respond({ input: [{ role: "user", content: "Hello" }], store: true });
    conforms("POST /responses", first);
    const id = first.body.id;
    conforms("GET /responses/{response_id}", await request("GET", `/responses/${id}`));
    const items = await request<OpenAI.Responses.ResponseItemList>("GET", `/responses/${id}/input_items`);
    conforms("GET /responses/{response_id}/input_items", items);
    expect(items.body.data.length).toBe(1);

    const second = await respond({ input: "And then?", previous_response_id: id });
    conforms("POST /responses", second);
    const secondId = second.body.id;
    const all = await request<OpenAI.Responses.ResponseItemList>(
      "GET",
      `/responses/${secondId}/input_items?order=asc`,
    );
    conforms("GET /responses/{response_id}/input_items", all);
    // The earlier turn's input and output, then the new input.
    expect(all.body.data.map((i) => i.type)).toEqual(["message", "message", "message"]);

    const deleted = await request("DELETE", `/responses/${id}`);
    // The document gives the 200 of DELETE no body schema; what OpenAI sends is this.
    expect(deleted).toEqual({ status: 200, body: { id, object: "response", deleted: true } });
    const gone = await request("GET", `/responses/${id}`);
    expect(gone.status).toBe(404);
    expect(spec.error(gone.body)).toEqual([]);
  });
});

describe("POST /v1/embeddings", () => {
  const embed = <R = OpenAI.CreateEmbeddingResponse>(body: object) =>
    request<R>("POST", "/embeddings", { model: tiny.model, input: ["one", "two"], ...body });
  const vectors = (answer: Answer) =>
    (answer.body as OpenAI.CreateEmbeddingResponse).data.map((d) => d.embedding);
  /**
   * The document has `embedding` a list of numbers; with `encoding_format: "base64"` OpenAI sends that list
   * as base64 of little-endian float32, so those answers are checked with each list decoded.
   */
  const decoded = (answer: Answer): Answer => {
    const body = answer.body as { data: { embedding: unknown }[] };
    return {
      status: answer.status,
      body: {
        ...body,
        data: body.data.map((d) => {
          expect(typeof d.embedding).toBe("string");
          const bytes = new Uint8Array(Buffer.from(String(d.embedding), "base64"));
          return { ...d, embedding: Array.from(new Float32Array(bytes.buffer)) };
        }),
      },
    };
  };
  const length = (v: number[]) => Math.sqrt(v.reduce((sum, x) => sum + x * x, 0));

  test("float and base64: the same vectors", async () => {
    const float = await embed({ encoding_format: "float" });
    conforms("POST /embeddings", float);
    const base64 = decoded(await embed({ encoding_format: "base64" }));
    conforms("POST /embeddings", base64);
    expect(vectors(base64)).toEqual(vectors(float));
  });

  test("dimensions: each vector's first values, scaled back to length 1, float and base64", async () => {
    const full = vectors(await embed({}));
    const size = full[0]?.length ?? 0;
    expect(size).toBeGreaterThan(8);
    const eight = await embed({ dimensions: 8 });
    conforms("POST /embeddings", eight);
    for (const [i, vector] of vectors(eight).entries()) {
      expect(vector.length).toBe(8);
      expect(length(vector)).toBeCloseTo(1, 5);
      const head = full[i]?.slice(0, 8) ?? [];
      for (const [d, x] of vector.entries()) expect(x).toBeCloseTo((head[d] ?? 0) / length(head), 5);
    }
    const base64 = decoded(await embed({ dimensions: 8, encoding_format: "base64" }));
    conforms("POST /embeddings", base64);
    for (const [i, vector] of vectors(base64).entries()) {
      for (const [d, x] of vector.entries()) expect(x).toBeCloseTo(vectors(eight)[i]?.[d] ?? Number.NaN, 6);
    }
    // All of them: the vectors as they are.
    expect(vectors(await embed({ dimensions: size }))).toEqual(full);
  });

  test("dimensions beyond the model's is 400 naming the parameter, never ignored", async () => {
    const full = vectors(await embed({}))[0]?.length ?? 0;
    const refused = await embed<OpenAIError>({ dimensions: full + 1 });
    expect({ status: refused.status, problems: spec.error(refused.body) }).toEqual({
      status: 400,
      problems: [],
    });
    expect(refused.body.error).toMatchObject({
      type: "invalid_request_error",
      param: "dimensions",
    });
    expect(refused.body.error.message).toContain(String(full));
  });
});

describe("GET /v1/models", () => {
  test("the list and one model", async () => {
    conforms("GET /models", await request("GET", "/models"));
    conforms("GET /models/{model}", await request("GET", `/models/${tiny.model}`));
  });
});

describe("errors", () => {
  const error = (answer: { status: number; body: OpenAIError }, status: number, code: string | null) => {
    expect({ status: answer.status, problems: spec.error(answer.body) }).toEqual({ status, problems: [] });
    expect(answer.body.error.code).toBe(code);
  };

  test("a bad body, a bad key, an unknown model, an unknown route", async () => {
    error(await chat<OpenAIError>({ messages: "not a list" }), 400, "invalid_request_error");
    error(
      await request<OpenAIError>(
        "POST",
        "/chat/completions",
        { model: tiny.model, messages: hello },
        "sk-wrong",
      ),
      401,
      "invalid_api_key",
    );
    error(
      await request<OpenAIError>("POST", "/chat/completions", { model: "no-such-model", messages: hello }),
      404,
      "model_not_found",
    );
    error(
      await request<OpenAIError>("POST", "/responses", { model: "no-such-model", input: "Hi" }),
      404,
      "model_not_found",
    );
    error(await request<OpenAIError>("GET", "/no/such/route"), 404, "not_found");
    error(await request<OpenAIError>("GET", "/responses/resp_0123/input_items"), 404, "not_found");
  });
});
