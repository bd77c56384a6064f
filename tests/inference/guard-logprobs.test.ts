// logprobs carry the answer's tokens: an output guardrail that holds back or redacts text must not let them
// spell out what it hid. Without a guardrail they pass untouched (tests/inference/gateway-end-to-end.test.ts).
import { expect, test } from "bun:test";
import type { ReceivedChunk } from "#contracts/openai/chat.ts";
import type { GuardrailsPolicy } from "#services/guardrails/policy.ts";
import { requestGuard } from "#services/inference/guard.ts";

const tokens = (text: string) => ({
  content: [...text].map((c) => ({ token: c, logprob: -0.1, bytes: [...Buffer.from(c)], top_logprobs: [] })),
  refusal: null,
});
const pii: GuardrailsPolicy = { output: { pii: { action: "redact" }, mode: "blocking" } };

test("a blocking stream guardrail drops the chunks' logprobs", () => {
  const output = requestGuard(pii)?.output(true);
  const text = "Write to john.doe@example.com today.";
  const chunk: ReceivedChunk = {
    choices: [{ index: 0, delta: { content: text }, logprobs: tokens(text), finish_reason: "stop" }],
  };
  const out = output?.chunk?.(chunk);
  expect(out?.choices?.[0]?.delta?.content).toBe("Write to [EMAIL] today.");
  expect(out?.choices?.[0]?.logprobs).toBeNull();
  expect(JSON.stringify(out)).not.toContain("john");
});

test("a redacted plain answer loses its logprobs; an answer left as it was keeps them", async () => {
  const guard = requestGuard(pii);
  const answer = (content: string) => ({
    choices: [
      { index: 0, message: { role: "assistant", content }, logprobs: tokens(content), finish_reason: "stop" },
    ],
  });
  const redacted = answer("Mail john.doe@example.com");
  await guard?.outputText(redacted);
  expect(redacted.choices[0]?.message.content).toBe("Mail [EMAIL]");
  expect(redacted.choices[0]?.logprobs).toBeNull();
  const clean = answer("Nothing to hide");
  await guard?.outputText(clean);
  expect(clean.choices[0]?.logprobs).toEqual(tokens("Nothing to hide"));
});
