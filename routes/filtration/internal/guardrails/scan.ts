import { t } from "elysia";
import { route } from "#server/http/route.ts";
import { scanContent } from "#services/guardrails/scan-request.ts";
import { GuardrailsConfig, Messages, Uuid } from "../../_schemas/internal.ts";

const Finding = t.Object({
  scanner: t.String(),
  type: t.String(),
  score: t.Number(),
  start: t.Integer(),
  end: t.Integer(),
  message: t.Optional(t.Integer({ description: "Index of the message, when messages were scanned" })),
});

export const POST = route({
  access: "internal",
  // Prompts, documents and model output: any character but NUL.
  freeText: true,
  summary: "Scan a text, or messages, with a guardrails policy",
  description:
    "The policy is `config` when given, else the deployment's effective `guardrails` policy, else none (allowed). " +
    "Findings are offsets, never the matched text.",
  bodyLimit: 8 * 1024 * 1024,
  body: t.Object({
    text: t.Optional(t.String({ maxLength: 4_000_000 })),
    messages: t.Optional(Messages),
    direction: t.Union([t.Literal("input"), t.Literal("output")]),
    deployment_id: t.Optional(Uuid),
    org_id: t.Optional(Uuid),
    config: t.Optional(GuardrailsConfig),
  }),
  response: t.Object({
    allowed: t.Boolean(),
    action: t.Union([t.Literal("allow"), t.Literal("log"), t.Literal("redact"), t.Literal("block")]),
    findings: t.Array(Finding),
    redacted: t.Optional(t.Union([t.String(), t.Array(t.Record(t.String(), t.Unknown()))])),
    blocked_by: t.Optional(t.Array(t.String())),
  }),
  handler: ({ ctx, body }) => scanContent(ctx, body),
});
