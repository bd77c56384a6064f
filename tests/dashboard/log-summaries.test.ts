// The inference logs page's last column: what guardrails decided and how retrieval found its
// passages, from the logged decisions (offsets only, never the matched text); and each row's cost.
import { expect, test } from "bun:test";
import { guardrailSummary, retrievalSummary } from "#routes/dashboard/_shared/parts/decisions.ts";
import { InferenceLogsPage } from "#routes/dashboard/logs/_view.tsx";
import type { InferenceLogView } from "#services/inference-logs/logs.ts";
import { allPermissions } from "#services/permissions.ts";

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

test("each log row shows its cost, a dash when the deployment is unpriced", async () => {
  const row = (request_id: string, cost: number): InferenceLogView => ({
    id: crypto.randomUUID(),
    request_id,
    created_at: "2026-11-25T12:00:00.000Z",
    deployment_id: null,
    api_key_id: null,
    key_prefix: "sk-abc",
    model: "m",
    status: 200,
    error_code: null,
    prompt_tokens: 12,
    completion_tokens: 5,
    total_tokens: 17,
    cached_tokens: 0,
    latency_ms: 3,
    cost,
    ttft_ms: null,
    served_by_deployment_id: null,
    served_by: null,
    served_by_endpoint: null,
    stream: false,
    guardrails: {},
    retrieval: null,
  });
  const html = await InferenceLogsPage({
    page: {
      actor: {
        userId: crypto.randomUUID(),
        email: "a@example.com",
        orgId: crypto.randomUUID(),
        role: "admin",
        permissions: new Set(allPermissions),
      },
      csrf: "x",
      path: "/logs",
      organizations: [],
    },
    items: [row("priced", 0.22), row("unpriced", 0)],
    nextCursor: null,
    filters: {},
    deployments: [],
  });
  const cells = [...String(html).matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map((m) => m[1] as string);
  expect(cells[0]).toContain('<th class="num">Cost</th>');
  expect(cells[1]).toContain('<td class="num">0.22</td>');
  expect(cells[2]).toContain('<td class="num">—</td>');
});
