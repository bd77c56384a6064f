import { index, jsonb, pgTable, text, uuid } from "drizzle-orm/pg-core";
import { createdAt, id } from "./_columns.ts";

export const auditOutcomes = ["success", "failure"] as const;
export type AuditOutcome = (typeof auditOutcomes)[number];

/**
 * One row per state-changing request, written in the transaction of the change (success) or right
 * after its rollback (failure). No foreign keys: the record outlives what it names.
 */
export const auditLogs = pgTable(
  "audit_logs",
  {
    id: id(),
    orgId: uuid("org_id"),
    actorId: uuid("actor_id"),
    /** E-mail or key prefix at the time, so the record reads well after the actor is gone. */
    actorLabel: text("actor_label"),
    /** `resource.verb`, e.g. `api_key.create`, `auth.login`. */
    action: text("action").notNull(),
    targetType: text("target_type"),
    targetId: text("target_id"),
    outcome: text("outcome", { enum: auditOutcomes }).notNull(),
    /** Why a failure failed (the error code), or a few safe facts. Never a secret. */
    details: jsonb("details").$type<Record<string, unknown>>().notNull().default({}),
    ip: text("ip"),
    userAgent: text("user_agent"),
    requestId: text("request_id"),
    createdAt: createdAt(),
  },
  (t) => [
    index("audit_logs_org_time_idx").on(t.orgId, t.createdAt),
    index("audit_logs_org_actor_idx").on(t.orgId, t.actorId),
    index("audit_logs_org_action_idx").on(t.orgId, t.action),
  ],
);
export type AuditLogRow = typeof auditLogs.$inferSelect;
