// Usage in the Messages API's terms: the engine's reused prompt tokens (chat usage's
// prompt_tokens_details.cached_tokens, CONTRACTS "Agent protocols") are cache_read_input_tokens, in an
// answer and in a stream's message_delta; nothing is ever written to a cache, so creation is 0.
import { expect, test } from "bun:test";
import type { MessageCreateParams } from "#contracts/anthropic/messages.ts";
import { messageOf } from "#services/inference/anthropic/answer.ts";
import { messageEvents } from "#services/inference/anthropic/stream.ts";

const request: MessageCreateParams = {
  model: "tiny",
  max_tokens: 10,
  messages: [{ role: "user", content: "Hi" }],
};
const usage = {
  prompt_tokens: 120,
  completion_tokens: 4,
  total_tokens: 124,
  prompt_tokens_details: { cached_tokens: 96 },
};

test("an answer's usage: input, output and the engine's reused tokens as cache reads", () => {
  const message = messageOf("msg_1", request, {
    choices: [{ message: { content: "Hello" }, finish_reason: "stop" }],
    usage,
  });
  expect(message.usage).toMatchObject({
    input_tokens: 120,
    output_tokens: 4,
    cache_read_input_tokens: 96,
    cache_creation_input_tokens: 0,
  });
  expect(message.stop_reason).toBe("end_turn");
});

test("a stream's message_delta carries the same usage", async () => {
  const translator = messageEvents({ id: "msg_2", requestId: "req_1", request });
  translator.start();
  translator.chunk({ choices: [{ delta: { content: "Hi" }, finish_reason: "length" }] });
  translator.chunk({ choices: [], usage });
  const events = (await translator.end())
    .split("\n\n")
    .filter((e) => e.startsWith("event: message_delta"))
    .map((e) => JSON.parse(e.slice(e.indexOf("data: ") + 6)));
  expect(events).toEqual([
    {
      type: "message_delta",
      delta: { stop_reason: "max_tokens", stop_sequence: null, stop_details: null, container: null },
      usage: {
        input_tokens: 120,
        output_tokens: 4,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 96,
        output_tokens_details: null,
        server_tool_use: null,
      },
    },
  ]);
});
