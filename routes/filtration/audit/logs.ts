import { t } from "elysia";
import { route } from "#server/http/route.ts";
import { auditPageSize, queryAuditLogs } from "#services/audit/query.ts";

const AuditRecord = t.Object({
  id: t.String(),
  created_at: t.String({ format: "date-time" }),
  actor_id: t.Nullable(t.String()),
  actor_label: t.Nullable(t.String({ description: "E-mail (or API key prefix) at the time" })),
  action: t.String({ description: "resource.verb, e.g. auth.login, role.update" }),
  target_type: t.Nullable(t.String()),
  target_id: t.Nullable(t.String()),
  outcome: t.Union([t.Literal("success"), t.Literal("failure")]),
  details: t.Record(t.String(), t.Unknown()),
  ip: t.Nullable(t.String()),
  user_agent: t.Nullable(t.String()),
  request_id: t.Nullable(t.String()),
});

export const GET = route({
  access: "audit:read",
  summary: "The audit log of your organization, newest first",
  description: "Pages of `limit` records; pass `next_cursor` as `cursor` for the next (older) page.",
  query: t.Object({
    actor: t.Optional(t.String({ maxLength: 320, description: "A user id, or an e-mail" })),
    action: t.Optional(t.String({ maxLength: 128, description: "Exact, or a prefix ending in * (auth.*)" })),
    outcome: t.Optional(t.Union([t.Literal("success"), t.Literal("failure")])),
    from: t.Optional(t.String({ format: "date-time", description: "Records at or after (ISO 8601)" })),
    to: t.Optional(t.String({ format: "date-time", description: "Records before (ISO 8601)" })),
    limit: t.Optional(t.Integer({ minimum: 1, maximum: auditPageSize.max, default: auditPageSize.default })),
    cursor: t.Optional(t.String({ maxLength: 512 })),
  }),
  response: t.Object({ items: t.Array(AuditRecord), next_cursor: t.Nullable(t.String()) }),
  handler: ({ ctx, query }) => queryAuditLogs(ctx, query),
});
