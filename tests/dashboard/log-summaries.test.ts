// The inference logs page's last column: what guardrails decided and how retrieval found its
// passages, from the logged decisions (offsets only, never the matched text).
import { expect, test } from "bun:test";
import { guardrailSummary, retrievalSummary } from "../../views/parts/decisions.ts";

test("guardrail decisions read as stage, action and what was found, counted", () => {
  expect(
    guardrailSummary({
      input: {
        action: "redact",
        findings: [
          { scanner: "pii", type: "email", start: 3, end: 20 },
          { scanner: "pii", type: "email", start: 30, end: 44 },
          { scanner: "pii", type: "phone", start: 50, end: 62 },
        ],
      },
      output: { action: "allow", findings: [] },
      classifier: { action: "log", error: "the classifier answered 500" },
    }),
  ).toBe("input redact (pii email ×2, pii phone); classifier log (could not check)");
  expect(guardrailSummary({})).toBe("");
});

test("retrieval reads as its mode and documents, with the fallback's reason", () => {
  expect(
    retrievalSummary({
      mode: "hybrid",
      passages: [
        { document: "leave.md", score: 1 },
        { document: "leave.md", score: 0.9 },
        { document: "trains.md", score: 0.5 },
      ],
    }),
  ).toBe("hybrid: leave.md, trains.md");
  expect(
    retrievalSummary({
      mode: "full_text",
      passages: [],
      fallback: "the embedding deployment e5 is STOPPED, not RUNNING",
    }),
  ).toBe("full text: no passage (fallback: the embedding deployment e5 is STOPPED, not RUNNING)");
  expect(retrievalSummary(null)).toBe("");
});
