// tests/support/openai-spec.ts, the validator the conformance tests rely on, catches what OpenAI's
// document forbids and accepts what it allows: a validator that accepted everything would make every
// conformance test pass.
import { beforeAll, expect, test } from "bun:test";
import { type OpenAiSpec, openAiSpec } from "../support/openai-spec.ts";

let spec: OpenAiSpec;
beforeAll(async () => {
  spec = await openAiSpec();
}, 60_000);

const usage = {
  input_tokens: 3,
  input_tokens_details: { cached_tokens: 0, cache_write_tokens: 0 },
  output_tokens: 2,
  output_tokens_details: { reasoning_tokens: 0 },
  total_tokens: 5,
};
const response = {
  id: "resp_1",
  object: "response",
  created_at: 1,
  completed_at: 2,
  status: "completed",
  error: null,
  incomplete_details: null,
  instructions: null,
  max_output_tokens: null,
  model: "tiny",
  output: [
    {
      id: "msg_1",
      type: "message",
      role: "assistant",
      status: "completed",
      content: [{ type: "output_text", text: "Hi", annotations: [], logprobs: [] }],
    },
  ],
  parallel_tool_calls: true,
  previous_response_id: null,
  reasoning: { effort: null, summary: null },
  store: true,
  temperature: null,
  top_p: null,
  text: { format: { type: "text" } },
  tool_choice: "auto",
  tools: [],
  truncation: "disabled",
  usage,
  metadata: {},
};

test("a response as the document has it passes; each of the issue's four departures fails, by name", async () => {
  expect(spec.answer("POST /responses", response)).toEqual([]);
  expect(spec.answer("POST /responses", { ...response, user: null }).join()).toContain(
    "/user must be string",
  );
  const noWrite = { ...usage, input_tokens_details: { cached_tokens: 0 } };
  expect(spec.answer("POST /responses", { ...response, usage: noWrite }).join()).toContain(
    "cache_write_tokens",
  );
  const created = { type: "response.created", sequence_number: 0, response: { ...response, usage: null } };
  expect(spec.event("POST /responses", created).join()).toContain("/response/usage must be object");
  const done = {
    type: "response.function_call_arguments.done",
    sequence_number: 3,
    item_id: "fc_1",
    output_index: 0,
  };
  expect(spec.event("POST /responses", { ...done, arguments: "{}", name: "f" })).toEqual([]);
  expect(spec.event("POST /responses", { ...done, arguments: "{}" }).join()).toContain("'name'");
});

test("an output item is checked against the branch its type names (a discriminator), not thirty", () => {
  const wrong = {
    ...response,
    output: [{ ...response.output[0], content: [{ type: "output_text", text: "Hi" }] }],
  };
  const problems = spec.answer("POST /responses", wrong);
  expect(problems.length).toBeGreaterThan(0);
  expect(problems.every((p) => p.includes("/output/0/content/0"))).toBe(true);
  const unknownType = { ...response, output: [{ type: "no_such_item" }] };
  expect(spec.answer("POST /responses", unknownType).join()).toContain("/output/0/type");
});

test("OpenAPI 3.0's nullable allows null where the document says so, and only there", () => {
  // A chat chunk's choices[].logprobs is `type: object, nullable: true` in the document.
  const chunk = (logprobs: unknown) => ({
    id: "c",
    object: "chat.completion.chunk",
    created: 1,
    model: "tiny",
    choices: [{ index: 0, delta: { content: "a" }, finish_reason: null, logprobs }],
  });
  expect(spec.event("POST /chat/completions", chunk(null))).toEqual([]);
  expect(spec.event("POST /chat/completions", chunk({ content: null, refusal: null }))).toEqual([]);
  expect(spec.event("POST /chat/completions", chunk(5)).join()).toContain("/choices/0/logprobs");
});

test("errors: the ErrorResponse shape, and an operation the document does not have is said plainly", () => {
  const error = { error: { message: "x", type: "invalid_request_error", param: null, code: "not_found" } };
  expect(spec.error(error)).toEqual([]);
  expect(spec.error({ error: { message: "x" } }).length).toBeGreaterThan(0);
  expect(() => spec.answer("POST /nowhere", {})).toThrow("no 200 answer of POST /nowhere");
});
