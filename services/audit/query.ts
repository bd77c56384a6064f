// Reading the audit log of the active organization: newest first, filtered, in pages. Pages are cut
// by a cursor (the position of the last record shown), so records written while a reader pages do not
// shift or repeat what they see.
import { and, desc, eq, gte, like, lt, or, type SQL, sql } from "drizzle-orm";
import { invalid } from "#core/errors.ts";
import { type AuditLogRow, type AuditOutcome, auditLogs } from "#db/schema/index.ts";
import { actorOf, type RequestContext } from "../context.ts";

export const auditPageSize = { default: 50, max: 200 } as const;

export interface AuditQuery {
  /** A user id, or an e-mail / key prefix (the actor label), matched exactly (e-mails without case). */
  actor?: string | undefined;
  /** An action (`role.update`), or a prefix ending in `*` (`auth.*`). */
  action?: string | undefined;
  outcome?: AuditOutcome | undefined;
  /** ISO 8601; records at or after. */
  from?: string | undefined;
  /** ISO 8601; records before. */
  to?: string | undefined;
  limit?: number | undefined;
  cursor?: string | undefined;
}

export interface AuditRecord {
  id: string;
  created_at: string;
  actor_id: string | null;
  actor_label: string | null;
  action: string;
  target_type: string | null;
  target_id: string | null;
  outcome: AuditOutcome;
  details: AuditLogRow["details"];
  ip: string | null;
  user_agent: string | null;
  request_id: string | null;
}

export interface AuditPage {
  items: AuditRecord[];
  /** Pass as `cursor` for the next (older) page; null on the last page. */
  next_cursor: string | null;
}

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The cursor keeps the timestamp at the database's microsecond precision, which a JS Date would lose. */
interface Position {
  at: string;
  id: string;
}
const encodeCursor = (p: Position) => Buffer.from(JSON.stringify(p)).toString("base64url");
function decodeCursor(cursor: string): Position {
  try {
    const p = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as Partial<Position>;
    if (
      typeof p.at === "string" &&
      !Number.isNaN(Date.parse(p.at)) &&
      typeof p.id === "string" &&
      uuidPattern.test(p.id)
    ) {
      return { at: p.at, id: p.id };
    }
  } catch {}
  throw invalid("query.cursor", "is not a cursor this endpoint returned");
}

function instant(field: string, value: string): Date {
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) throw invalid(`query.${field}`, "is not an ISO 8601 date-time");
  return date;
}

const preciseTime = sql<string>`to_char(${auditLogs.createdAt} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

export async function queryAuditLogs(ctx: RequestContext, query: AuditQuery): Promise<AuditPage> {
  const { orgId } = actorOf(ctx);
  const limit = Math.min(query.limit ?? auditPageSize.default, auditPageSize.max);
  const where: (SQL | undefined)[] = [eq(auditLogs.orgId, orgId)];
  if (query.actor) {
    const label = eq(
      auditLogs.actorLabel,
      query.actor.includes("@") ? query.actor.trim().toLowerCase() : query.actor,
    );
    where.push(uuidPattern.test(query.actor) ? or(eq(auditLogs.actorId, query.actor), label) : label);
  }
  if (query.action) {
    where.push(
      query.action.endsWith("*")
        ? like(auditLogs.action, `${query.action.slice(0, -1).replace(/[\\%_]/g, "\\$&")}%`)
        : eq(auditLogs.action, query.action),
    );
  }
  if (query.outcome) where.push(eq(auditLogs.outcome, query.outcome));
  if (query.from) where.push(gte(auditLogs.createdAt, instant("from", query.from)));
  if (query.to) where.push(lt(auditLogs.createdAt, instant("to", query.to)));
  if (query.cursor) {
    const p = decodeCursor(query.cursor);
    where.push(sql`(${auditLogs.createdAt}, ${auditLogs.id}) < (${p.at}::timestamptz, ${p.id}::uuid)`);
  }
  const rows = await ctx.db
    .select({ row: auditLogs, at: preciseTime })
    .from(auditLogs)
    .where(and(...where))
    .orderBy(desc(auditLogs.createdAt), desc(auditLogs.id))
    .limit(limit + 1);
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return {
    items: page.map(({ row }) => ({
      id: row.id,
      created_at: row.createdAt.toISOString(),
      actor_id: row.actorId,
      actor_label: row.actorLabel,
      action: row.action,
      target_type: row.targetType,
      target_id: row.targetId,
      outcome: row.outcome,
      details: row.details,
      ip: row.ip,
      user_agent: row.userAgent,
      request_id: row.requestId,
    })),
    next_cursor: rows.length > limit && last ? encodeCursor({ at: last.at, id: last.row.id }) : null,
  };
}
