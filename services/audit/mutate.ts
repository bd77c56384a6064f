// Every state-changing service call goes through mutate(): the change and its audit record commit
// together, and when the change fails, the failure is recorded after the rollback, so no attempt is
// lost and no record claims a change that did not happen.

import { AppError } from "#core/errors.ts";
import type { Executor } from "#db/client.ts";
import { type AuditLogRow, type AuditOutcome, auditLogs } from "#db/schema/index.ts";
import type { RequestContext } from "../context.ts";

/** What an audit entry says of the change besides its target (stored as the row's JSON details). */
export type AuditDetails = AuditLogRow["details"];

export interface AuditTarget {
  type: string;
  id?: string | undefined;
}

export interface AuditEntry {
  action: string;
  target?: AuditTarget | undefined;
  outcome: AuditOutcome;
  details?: AuditDetails | undefined;
  /** For requests without an actor (a failed login): whose attempt it was, and in which organization. */
  orgId?: string | undefined;
  actorId?: string | undefined;
  actorLabel?: string | undefined;
}

export type AuditContext = Pick<RequestContext, "actor" | "ip" | "userAgent" | "requestId">;

export async function writeAudit(db: Executor, ctx: AuditContext, entry: AuditEntry): Promise<void> {
  await db.insert(auditLogs).values({
    orgId: entry.orgId ?? ctx.actor?.orgId ?? null,
    actorId: entry.actorId ?? ctx.actor?.userId ?? null,
    actorLabel: entry.actorLabel ?? ctx.actor?.email ?? null,
    action: entry.action,
    targetType: entry.target?.type ?? null,
    targetId: entry.target?.id ?? null,
    outcome: entry.outcome,
    details: entry.details ?? {},
    ip: ctx.ip ?? null,
    userAgent: ctx.userAgent?.slice(0, 512) ?? null,
    requestId: ctx.requestId,
  });
}

export interface MutationResult<T> {
  result: T;
  /** The target once known (an id created by the change). */
  target?: AuditTarget;
  details?: AuditDetails;
  /** For requests without an actor (registration): who acted, known only once the change is made. */
  actor?: { orgId: string; actorId: string; actorLabel: string };
}

/**
 * Runs `work` in a transaction with its audit record. `work` returns the value and, if it only then
 * knows it, the target (the new row's id).
 */
export async function mutate<T>(
  ctx: RequestContext,
  action: string,
  target: AuditTarget | undefined,
  work: (tx: Executor) => Promise<MutationResult<T>>,
): Promise<T> {
  try {
    return await ctx.db.transaction(async (tx) => {
      const done = await work(tx);
      await writeAudit(tx, ctx, {
        action,
        target: done.target ?? target,
        outcome: "success",
        details: done.details,
        ...done.actor,
      });
      return done.result;
    });
  } catch (error) {
    const code = error instanceof AppError ? error.code : "internal";
    try {
      await writeAudit(ctx.db, ctx, { action, target, outcome: "failure", details: { error: code } });
    } catch (auditError) {
      ctx.log.error("audit record of a failed mutation could not be written", {
        action,
        error: String(auditError),
      });
    }
    throw error;
  }
}
