// POST /v1/responses, GET and DELETE /v1/responses/{id}: OpenAI's Responses API translated to the
// replica's chat endpoint (a stub whose answers the test chooses), read with the official openai SDK.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import OpenAI from "openai";
import type { OpenAIError } from "#contracts/openai/error.ts";
import { storedResponses } from "#db/schema/index.ts";
import type { POST as createKeyRoute } from "#routes/filtration/management/api-keys/index.ts";
import { buildHttpGateway } from "#routes/gateways.ts";
import { httpFiltration } from "#server/filtration-http-port.ts";
import { listen } from "#server/http/listen.ts";
import type { Listener } from "#server/start/platform.ts";
import { inProcessFiltration } from "#services/inference-context/in-process-port.ts";
import { otherTenant } from "../orchestration/support.ts";
import { call, jsonBody } from "../support/app.ts";
import { type OpenAiSpec, openAiSpec } from "../support/openai-spec.ts";
import { type GatewayTest, openAiClient, setPolicy, startGatewayTest } from "./support.ts";

let g: GatewayTest;
let client: OpenAI;
let spec: OpenAiSpec;

beforeAll(async () => {
  g = await startGatewayTest();
  client = openAiClient(g);
  spec = await openAiSpec();
  spec.prepare(["POST /responses"]);
}, 30_000);
afterEach(() => {
  g.stub.deltas = undefined;
  g.stub.toolCalls = undefined;
});
afterAll(() => g.close(), 30_000);

/** What an SDK call threw (APIPromise is not a plain promise to `expect().rejects`). */
const failure = (promise: PromiseLike<unknown>) =>
  Promise.resolve(promise).then(
    () => undefined,
    (error: unknown) => error,
  );
/** An openai client with an API key of a new, separate organization. */
async function otherOrganizationClient(on: GatewayTest): Promise<OpenAI> {
  const other = await otherTenant(on.o, `other-${crypto.randomUUID().slice(0, 6)}@example.com`);
  const key = await call<typeof createKeyRoute>(on.o.filtration, "POST", "/management/api-keys", {
    token: other.access_token,
    body: { name: "other" },
  });
  return new OpenAI({ apiKey: key.body.key, baseURL: `${on.url}/v1`, maxRetries: 0 });
}
const sent = () => g.stub.received.at(-1) as Record<string, unknown>;
const post = (body: Record<string, unknown>) =>
  fetch(`${g.url}/v1/responses`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${g.key}` },
    body: JSON.stringify({ model: g.model, input: "Hi", ...body }),
  });

test("a string input is one user message; the answer is a message output item with usage", async () => {
  g.stub.deltas = ["Hello", " you"];
  const response = await client.responses.create({ model: g.model, input: "Hi there", max_output_tokens: 9 });
  expect(response.object).toBe("response");
  expect(response.id).toMatch(/^resp_[0-9a-f]{32}$/);
  expect(response.status).toBe("completed");
  expect(response.model).toBe(g.model);
  expect(response.output_text).toBe("Hello you");
  expect(response.output).toEqual([
    {
      id: expect.stringMatching(/^msg_/),
      type: "message",
      role: "assistant",
      status: "completed",
      content: [{ type: "output_text", text: "Hello you", annotations: [], logprobs: [] }],
    },
  ]);
  expect(response.usage).toMatchObject({ input_tokens: 12, output_tokens: 5, total_tokens: 17 });
  expect(sent().messages).toEqual([{ role: "user", content: "Hi there" }]);
  expect(sent().max_tokens).toBe(9);
});

test("instructions and items: system first, developer as system, function calls and their outputs as chat tool turns", async () => {
  await client.responses.create({
    model: g.model,
    instructions: "Be brief.",
    input: [
      { role: "developer", content: "Answer in English." },
      {
        role: "user",
        content: [
          { type: "input_text", text: "Weather in " },
          { type: "input_text", text: "Paris?" },
        ],
      },
      { type: "function_call", call_id: "call_1", name: "weather", arguments: '{"city":"Paris"}' },
      { type: "function_call", call_id: "call_2", name: "weather", arguments: '{"city":"Lyon"}' },
      { type: "function_call_output", call_id: "call_1", output: "sunny" },
      { type: "function_call_output", call_id: "call_2", output: "rain" },
      {
        type: "message",
        id: "msg_earlier",
        status: "completed",
        role: "assistant",
        content: [{ type: "output_text", text: "Sunny in Paris.", annotations: [] }],
      },
      { type: "message", role: "user", content: "Thanks" },
    ],
    temperature: 0.2,
    top_p: 0.9,
  });
  expect(sent().messages).toEqual([
    { role: "system", content: "Be brief." },
    { role: "system", content: "Answer in English." },
    { role: "user", content: "Weather in Paris?" },
    {
      role: "assistant",
      content: null,
      tool_calls: [
        { id: "call_1", type: "function", function: { name: "weather", arguments: '{"city":"Paris"}' } },
        { id: "call_2", type: "function", function: { name: "weather", arguments: '{"city":"Lyon"}' } },
      ],
    },
    { role: "tool", tool_call_id: "call_1", content: "sunny" },
    { role: "tool", tool_call_id: "call_2", content: "rain" },
    { role: "assistant", content: "Sunny in Paris." },
    { role: "user", content: "Thanks" },
  ]);
  expect(sent()).toMatchObject({ temperature: 0.2, top_p: 0.9 });
});

test("function tools, tool_choice and text.format become chat tools, tool_choice and response_format", async () => {
  g.stub.toolCalls = [{ name: "weather", arguments: '{"city":"Paris"}' }];
  const parameters = { type: "object", properties: { city: { type: "string" } }, required: ["city"] };
  const response = await client.responses.create({
    model: g.model,
    input: "Weather in Paris?",
    tools: [{ type: "function", name: "weather", description: "Today's weather", parameters, strict: true }],
    tool_choice: { type: "function", name: "weather" },
  });
  expect(sent().tools).toEqual([
    {
      type: "function",
      function: { name: "weather", description: "Today's weather", parameters, strict: true },
    },
  ]);
  expect(sent().tool_choice).toEqual({ type: "function", function: { name: "weather" } });
  expect(response.output).toEqual([
    {
      id: expect.stringMatching(/^fc_/),
      type: "function_call",
      status: "completed",
      call_id: "call_stub0",
      name: "weather",
      arguments: '{"city":"Paris"}',
    },
  ]);

  g.stub.toolCalls = undefined;
  g.stub.deltas = ['{"a":1}'];
  const json = await client.responses.create({
    model: g.model,
    input: "JSON please",
    text: { format: { type: "json_schema", name: "thing", schema: { type: "object" }, strict: true } },
  });
  expect(sent().response_format).toEqual({
    type: "json_schema",
    json_schema: { name: "thing", schema: { type: "object" }, strict: true },
  });
  expect(JSON.parse(json.output_text)).toEqual({ a: 1 });
  await client.responses.create({ model: g.model, input: "x", text: { format: { type: "json_object" } } });
  expect(sent().response_format).toEqual({ type: "json_object" });
  for (const choice of ["auto", "none", "required"] as const) {
    await client.responses.create({ model: g.model, input: "x", tool_choice: choice });
    expect(sent().tool_choice).toBe(choice);
  }
});

test("store and previous_response_id: the replica receives the earlier turns; retrieve, then delete", async () => {
  g.stub.deltas = ["Nice to meet you, Ada."];
  const first = await client.responses.create({
    model: g.model,
    instructions: "Only for the first turn.",
    input: "My name is Ada.",
  });
  g.stub.deltas = ["Your name is Ada."];
  const second = await client.responses.create({
    model: g.model,
    input: "What is my name?",
    previous_response_id: first.id,
  });
  expect(second.previous_response_id).toBe(first.id);
  // Instructions are not carried over (as OpenAI's): the conversation is the earlier input and output.
  expect(sent().messages).toEqual([
    { role: "user", content: "My name is Ada." },
    { role: "assistant", content: "Nice to meet you, Ada." },
    { role: "user", content: "What is my name?" },
  ]);
  await client.responses.create({ model: g.model, input: "And again?", previous_response_id: second.id });
  expect((sent().messages as unknown[]).length).toBe(5);

  const retrieved = await client.responses.retrieve(first.id);
  expect(retrieved.id).toBe(first.id);
  expect(retrieved.output_text).toBe("Nice to meet you, Ada.");
  expect(retrieved.usage).toEqual(first.usage);

  const deleted = await fetch(`${g.url}/v1/responses/${first.id}`, {
    method: "DELETE",
    headers: { authorization: `Bearer ${g.key}` },
  });
  expect(await deleted.json()).toEqual({ id: first.id, object: "response", deleted: true });
  const gone = await client.responses.retrieve(first.id).catch((e: unknown) => e);
  expect(gone).toBeInstanceOf(OpenAI.NotFoundError);
  expect(await failure(client.responses.delete(first.id))).toBeInstanceOf(OpenAI.NotFoundError);
  const orphan = await client.responses
    .create({ model: g.model, input: "x", previous_response_id: first.id })
    .catch((e: unknown) => e);
  expect(orphan).toBeInstanceOf(OpenAI.NotFoundError);
  expect((orphan as { param?: string }).param).toBe("previous_response_id");
});

test("input_items: every item the model answered, earlier turns included, with ids kept across turns, a page at a time", async () => {
  g.stub.toolCalls = [{ name: "weather", arguments: '{"city":"Oslo"}' }];
  const first = await client.responses.create({
    model: g.model,
    input: [
      { role: "developer", content: "Be brief." },
      { role: "user", content: [{ type: "input_text", text: "Weather in Oslo?" }] },
    ],
    tools: [{ type: "function", name: "weather", parameters: { type: "object" }, strict: false }],
  });
  g.stub.toolCalls = undefined;
  const call = first.output[0];
  if (call?.type !== "function_call") throw new Error("expected a function call");
  g.stub.deltas = ["Sunny."];
  const second = await client.responses.create({
    model: g.model,
    input: [{ type: "function_call_output", call_id: call.call_id, output: "sunny" }],
    previous_response_id: first.id,
  });

  const firstItems = await client.responses.inputItems.list(first.id, { order: "asc" });
  expect(firstItems.data).toEqual([
    {
      id: expect.stringMatching(/^msg_/),
      type: "message",
      role: "developer",
      content: [{ type: "input_text", text: "Be brief." }],
      status: "completed",
    },
    {
      id: expect.stringMatching(/^msg_/),
      type: "message",
      role: "user",
      content: [{ type: "input_text", text: "Weather in Oslo?" }],
      status: "completed",
    },
  ]);
  // The second response answered the first's input and output, then its own input; the same items
  // keep the same ids, and the function call is the first response's output item.
  const all = await client.responses.inputItems.list(second.id, { order: "asc" });
  expect(all.data.map((i) => i.id)).toEqual([
    ...firstItems.data.map((i) => i.id),
    call.id,
    expect.stringMatching(/^fco_/),
  ]);
  expect(all.data[3]).toMatchObject({ type: "function_call_output", call_id: call.call_id, output: "sunny" });

  // Newest first by default; pages of `limit` after `after`, with has_more, first_id and last_id.
  const get = async (query: string) => {
    const res = await fetch(`${g.url}/v1/responses/${second.id}/input_items${query}`, {
      headers: { authorization: `Bearer ${g.key}` },
    });
    const body: unknown = await res.json();
    return {
      status: res.status,
      page: body as OpenAI.Responses.ResponseItemList,
      error: body as { error?: OpenAI.ErrorObject },
    };
  };
  const ids = all.data.map((i) => i.id);
  const newest = await get("?limit=3");
  expect(newest.page.data.map((i) => i.id)).toEqual(ids.toReversed().slice(0, 3));
  expect(newest.page).toMatchObject({ object: "list", first_id: ids[3], last_id: ids[1], has_more: true });
  const rest = await get(`?limit=3&after=${newest.page.last_id}`);
  expect(rest.page.data.map((i) => i.id)).toEqual(ids.slice(0, 1));
  expect(rest.page.has_more).toBe(false);
  // The SDK's auto-pagination walks the pages.
  const walked: string[] = [];
  for await (const item of client.responses.inputItems.list(second.id, { limit: 1, order: "asc" }))
    walked.push(item.id);
  expect(walked).toEqual(ids);

  const unknownAfter = await get("?after=msg_nope");
  expect(unknownAfter.status).toBe(400);
  expect(unknownAfter.error.error?.param).toBe("after");
  expect((await get("?limit=101")).status).toBe(400);
  const theirs = await otherOrganizationClient(g);
  expect(await failure(theirs.responses.inputItems.list(second.id))).toBeInstanceOf(OpenAI.NotFoundError);
  expect(await failure(client.responses.inputItems.list("resp_nope"))).toBeInstanceOf(OpenAI.NotFoundError);
});

test("a response stored in the older form (user and usage null, no cache_write_tokens, items without ids) reads in the current one", async () => {
  const stored = await client.responses.create({ model: g.model, input: "Hi", user: "ada" });
  expect(stored.user).toBe("ada");
  const unnamed = await client.responses.create({ model: g.model, input: "Hi" });
  expect("user" in unnamed).toBe(false);
  const [row] = await g.o.t.app.db.select().from(storedResponses).where(eq(storedResponses.id, unnamed.id));
  if (!row) throw new Error("not stored");
  const older = {
    ...row.body,
    user: null,
    usage: { ...unnamed.usage, input_tokens_details: { cached_tokens: 0 } },
  };
  await g.o.t.app.db
    .update(storedResponses)
    .set({ body: older, conversation: [{ type: "message", role: "user", content: "Hi" }] })
    .where(eq(storedResponses.id, unnamed.id));
  const read = await client.responses.retrieve(unnamed.id);
  expect("user" in read).toBe(false);
  expect(read.usage?.input_tokens_details).toEqual({ cached_tokens: 0, cache_write_tokens: 0 });
  const items = await client.responses.inputItems.list(unnamed.id);
  expect(items.data.map((i) => i.id)).toEqual([`msg_${unnamed.id.slice("resp_".length)}_in0`]);
});

test("an item_reference reads an output item of a stored response (the AI SDK sends them when store is on)", async () => {
  g.stub.toolCalls = [{ name: "weather", arguments: '{"city":"Oslo"}' }];
  const first = await client.responses.create({
    model: g.model,
    input: "Weather in Oslo?",
    tools: [{ type: "function", name: "weather", parameters: { type: "object" }, strict: false }],
  });
  g.stub.toolCalls = undefined;
  const call = first.output[0] as OpenAI.Responses.ResponseFunctionToolCall;
  await client.responses.create({
    model: g.model,
    input: [
      { role: "user", content: "Weather in Oslo?" },
      { type: "item_reference", id: call.id as string },
      { type: "function_call_output", call_id: call.call_id, output: "snow" },
    ],
  });
  expect(sent().messages).toEqual([
    { role: "user", content: "Weather in Oslo?" },
    {
      role: "assistant",
      content: null,
      tool_calls: [
        { id: "call_stub0", type: "function", function: { name: "weather", arguments: '{"city":"Oslo"}' } },
      ],
    },
    { role: "tool", tool_call_id: "call_stub0", content: "snow" },
  ]);
});

test("the lifecycle is chat's: an input guardrail refuses naming input, before the replica is called", async () => {
  await setPolicy(g, "guardrails", { input: { pii: { action: "block" } } });
  g.clock.advance(1100);
  try {
    const before = g.stub.received.length;
    const refused = await failure(
      client.responses.create({ model: g.model, input: "mail jane.doe@example.com" }),
    );
    expect(refused).toBeInstanceOf(OpenAI.BadRequestError);
    expect(refused).toMatchObject({ code: "content_policy_violation", param: "input" });
    expect(g.stub.received.length).toBe(before);
  } finally {
    await call(g.o.filtration, "DELETE", `/management/config/guardrails?deployment_id=${g.deploymentId}`, {
      token: g.o.token,
    });
    g.clock.advance(1100);
  }
});

test("store: false keeps nothing; another organization's response id is 404, as one that never existed", async () => {
  const unstored = await client.responses.create({ model: g.model, input: "x", store: false });
  expect((unstored as { store?: boolean }).store).toBe(false);
  expect(await failure(client.responses.retrieve(unstored.id))).toBeInstanceOf(OpenAI.NotFoundError);

  const mine = await client.responses.create({ model: g.model, input: "secret" });
  const theirs = await otherOrganizationClient(g);
  expect(await failure(theirs.responses.retrieve(mine.id))).toBeInstanceOf(OpenAI.NotFoundError);
  expect(await failure(theirs.responses.delete(mine.id))).toBeInstanceOf(OpenAI.NotFoundError);
  const bad = new OpenAI({ apiKey: "sk-nope", baseURL: `${g.url}/v1`, maxRetries: 0 });
  expect(await failure(bad.responses.retrieve(mine.id))).toBeInstanceOf(OpenAI.AuthenticationError);
  expect((await client.responses.retrieve(mine.id)).output_text).toBe("Hello from the stub.");
});

test("streamed: the Responses events in order, with sequence numbers, ending with response.completed and usage", async () => {
  g.stub.deltas = ["Hel", "lo"];
  const stream = await client.responses.create({ model: g.model, input: "Hi", stream: true });
  const events: OpenAI.Responses.ResponseStreamEvent[] = [];
  for await (const event of stream) events.push(event);
  expect(events.map((e) => e.type)).toEqual([
    "response.created",
    "response.in_progress",
    "response.output_item.added",
    "response.content_part.added",
    "response.output_text.delta",
    "response.output_text.delta",
    "response.output_text.done",
    "response.content_part.done",
    "response.output_item.done",
    "response.completed",
  ]);
  expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
  const completed = events.at(-1) as OpenAI.Responses.ResponseCompletedEvent;
  expect(completed.response.status).toBe("completed");
  expect(completed.response.usage).toMatchObject({ input_tokens: 12, output_tokens: 2, total_tokens: 14 });
  expect((events[6] as OpenAI.Responses.ResponseTextDoneEvent).text).toBe("Hello");
  // Stored as it completed.
  expect((await client.responses.retrieve(completed.response.id)).output_text).toBe("Hello");

  // The SDK's own accumulator (responses.stream) checks every event against the snapshot it builds.
  const helper = client.responses.stream({ model: g.model, input: "Hi" });
  const final = await helper.finalResponse();
  expect(final.output_text).toBe("Hello");
});

test("streamed function calls: output_item.added with call_id and name, argument deltas, then done", async () => {
  g.stub.toolCalls = [
    { name: "weather", arguments: '{"city":"Paris"}' },
    { name: "time", arguments: '{"zone":"CET"}' },
  ];
  const stream = client.responses.stream({
    model: g.model,
    input: "Weather and time?",
    tools: [
      { type: "function", name: "weather", parameters: { type: "object" }, strict: false },
      { type: "function", name: "time", parameters: { type: "object" }, strict: false },
    ],
    tool_choice: "required",
  });
  const types: string[] = [];
  stream.on("event", (e) => types.push(e.type));
  const final = await stream.finalResponse();
  expect(types.filter((t) => t.startsWith("response.function_call_arguments.delta")).length).toBe(4);
  expect(types).toContain("response.function_call_arguments.done");
  expect(
    final.output.map((o) => (o.type === "function_call" ? [o.name, o.arguments, o.call_id] : o.type)),
  ).toEqual([
    ["weather", '{"city":"Paris"}', "call_stub0"],
    ["time", '{"zone":"CET"}', "call_stub1"],
  ]);
});

test("the replica's stream breaking ends with an error event; fields a chat model cannot serve are 400 by name", async () => {
  g.stub.behaviour = "die";
  try {
    const res = await post({ stream: true });
    const text = await res.text();
    expect(text).toContain("event: error");
    expect(text).toContain("event: response.failed");
    // Both as OpenAI's document has them: the failed response's code is one of its list.
    const events = text
      .split("\n")
      .filter((line) => line.startsWith("data: "))
      .map((line) => JSON.parse(line.slice("data: ".length)));
    expect(events.flatMap((e) => spec.event("POST /responses", e))).toEqual([]);
    expect(events.at(-2)).toMatchObject({ type: "error", code: "upstream_error" });
    expect(events.at(-1)?.response.error).toMatchObject({ code: "server_error" });
  } finally {
    g.stub.behaviour = "ok";
  }
  const cases: [Record<string, unknown>, string][] = [
    [{ background: true }, "background"],
    [{ include: ["message.output_text.logprobs"] }, "include"],
    [{ truncation: "auto" }, "truncation"],
    [{ tools: [{ type: "web_search" }] }, "tools"],
    [{ tool_choice: { type: "function", name: "nope" } }, "tool_choice"],
    [{ input: [{ type: "item_reference", id: "msg_unknown" }] }, "input"],
  ];
  for (const [body, param] of cases) {
    const res = await post(body);
    expect([400, 404]).toContain(res.status);
    const error = (await jsonBody<OpenAIError>(res)).error;
    expect(error.param).toStartWith(param);
  }
});

describe("gateways running apart: stored responses go through the filtration gateway's /internal/responses", () => {
  let apart: GatewayTest;
  let filtration: Listener;
  beforeAll(async () => {
    apart = await startGatewayTest({
      port: async (o) => {
        filtration = listen(o.t.app, "filtration", 0, await buildHttpGateway(o.t.app, "filtration"));
        return httpFiltration({
          baseUrl: `http://127.0.0.1:${filtration.port}`,
          internalApiKey: o.t.config.internalApiKey,
        });
      },
    });
  }, 30_000);
  afterAll(async () => {
    await apart.close();
    await filtration.stop(0);
  }, 30_000);

  test("store, previous_response_id, retrieve, delete and another organization's 404", async () => {
    const sdk = new OpenAI({ apiKey: apart.key, baseURL: `${apart.url}/v1`, maxRetries: 0 });
    const first = await sdk.responses.create({ model: apart.model, input: "One" });
    await sdk.responses.create({ model: apart.model, input: "Two", previous_response_id: first.id });
    expect((apart.stub.received.at(-1) as { messages: unknown[] }).messages).toEqual([
      { role: "user", content: "One" },
      { role: "assistant", content: "Hello from the stub." },
      { role: "user", content: "Two" },
    ]);
    expect((await sdk.responses.retrieve(first.id)).id).toBe(first.id);
    const theirs = await otherOrganizationClient(apart);
    expect(await failure(theirs.responses.retrieve(first.id))).toBeInstanceOf(OpenAI.NotFoundError);
    await sdk.responses.delete(first.id);
    expect(await failure(sdk.responses.retrieve(first.id))).toBeInstanceOf(OpenAI.NotFoundError);
  });
});

test("the OpenAPI document has the Responses and completions routes with their request schemas", async () => {
  const doc = (await (await fetch(`${g.url}/openapi/json`)).json()) as {
    paths: Record<
      string,
      Record<
        string,
        {
          requestBody?: { content: Record<string, { schema: { properties: object } }> };
          responses: Record<string, unknown>;
        }
      >
    >;
  };
  const body = (path: string) =>
    doc.paths[path]?.post?.requestBody?.content["application/json"]?.schema.properties;
  expect(Object.keys(body("/v1/responses") ?? {})).toEqual(
    expect.arrayContaining([
      "model",
      "input",
      "instructions",
      "tools",
      "tool_choice",
      "text",
      "store",
      "previous_response_id",
    ]),
  );
  expect(Object.keys(body("/v1/completions") ?? {})).toEqual(
    expect.arrayContaining(["model", "prompt", "max_tokens", "stream", "suffix", "echo", "logprobs"]),
  );
  expect(doc.paths["/v1/responses"]?.post?.responses["200"]).toBeDefined();
  expect(doc.paths["/v1/completions"]?.post?.responses["200"]).toBeDefined();
  expect(doc.paths["/v1/responses/{response_id}"]?.get?.responses["200"]).toBeDefined();
  expect(doc.paths["/v1/responses/{response_id}"]?.delete?.responses["200"]).toBeDefined();
});

describe("a store that fails", () => {
  let failing: GatewayTest;
  beforeAll(async () => {
    failing = await startGatewayTest({
      port: (o) => {
        const port = inProcessFiltration(o.t.app);
        return {
          ...port,
          responses: { ...port.responses, save: () => Promise.reject(new Error("disk full")) },
        };
      },
    });
  }, 30_000);
  afterAll(() => failing.close(), 30_000);

  test("streamed: ends with error and response.failed instead of completing an id that would be unknown", async () => {
    const res = await fetch(`${failing.url}/v1/responses`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${failing.key}` },
      body: JSON.stringify({ model: failing.model, input: "Hi", stream: true }),
    });
    const text = await res.text();
    expect(text).toContain("event: response.output_text.done");
    expect(text).toContain("event: error");
    expect(text).toContain("event: response.failed");
    expect(text).not.toContain("event: response.completed");
    expect(text).not.toContain("disk full");
    // Not stored, nothing is lost by store: false.
    const sdk = new OpenAI({ apiKey: failing.key, baseURL: `${failing.url}/v1`, maxRetries: 0 });
    expect((await sdk.responses.create({ model: failing.model, input: "Hi", store: false })).status).toBe(
      "completed",
    );
  });
});
