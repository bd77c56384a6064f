// Deployment logs: replica output (and the reconciler's own notes) go through a bounded in-memory
// queue to the live subscribers (the WebSocket stream) and to deployment_logs, where only the last
// `keepLines` lines of each deployment stay.
import { and, desc, eq, inArray, lte, sql } from "drizzle-orm";
import { notFound } from "#core/errors.ts";
import { uuidOr404 } from "#core/ids.ts";
import type { Executor } from "#db/client.ts";
import { deploymentLogs, deployments } from "#db/schema/index.ts";
import { type AppContext, actorOf, type RequestContext } from "../context.ts";

export interface LogEntry {
  ts: string;
  replica: number;
  stream: "stdout" | "stderr" | "system";
  line: string;
}

export const keepLines = 1000;
const maxQueued = 10_000;
const maxLineChars = 8192;

type Subscriber = (entry: LogEntry) => void;

export class LogHub {
  private queue: { deploymentId: string; entry: LogEntry }[] = [];
  private readonly subscribers = new Map<string, Set<Subscriber>>();

  push(
    deploymentId: string,
    replica: number,
    stream: LogEntry["stream"],
    lines: string[],
    ts = new Date(),
  ): void {
    for (const raw of lines) {
      const entry: LogEntry = { ts: ts.toISOString(), replica, stream, line: raw.slice(0, maxLineChars) };
      this.queue.push({ deploymentId, entry });
      for (const subscriber of this.subscribers.get(deploymentId) ?? []) subscriber(entry);
    }
    // Bounded: when the database cannot keep up, the oldest unsaved lines go first.
    if (this.queue.length > maxQueued) this.queue.splice(0, this.queue.length - maxQueued);
  }

  subscribe(deploymentId: string, subscriber: Subscriber): () => void {
    let set = this.subscribers.get(deploymentId);
    if (!set) {
      set = new Set();
      this.subscribers.set(deploymentId, set);
    }
    set.add(subscriber);
    return () => {
      set.delete(subscriber);
      if (set.size === 0) this.subscribers.delete(deploymentId);
    };
  }

  /** Saves what is queued and trims each touched deployment to its last `keepLines` lines. */
  async flush(db: Executor): Promise<void> {
    if (this.queue.length === 0) return;
    const batch = this.queue;
    this.queue = [];
    const touched = [...new Set(batch.map((b) => b.deploymentId))];
    // A deployment deleted meanwhile takes its lines with it (the foreign key would refuse them).
    const live = new Set(
      (await db.select({ id: deployments.id }).from(deployments).where(inArray(deployments.id, touched))).map(
        (d) => d.id,
      ),
    );
    const rows = batch
      .filter((b) => live.has(b.deploymentId))
      .map((b) => ({
        deploymentId: b.deploymentId,
        replica: b.entry.replica,
        stream: b.entry.stream,
        line: b.entry.line,
        ts: new Date(b.entry.ts),
      }));
    for (let i = 0; i < rows.length; i += 500) await db.insert(deploymentLogs).values(rows.slice(i, i + 500));
    for (const deploymentId of live) await trim(db, deploymentId);
  }
}

async function trim(db: Executor, deploymentId: string): Promise<void> {
  const [cut] = await db
    .select({ id: deploymentLogs.id })
    .from(deploymentLogs)
    .where(eq(deploymentLogs.deploymentId, deploymentId))
    .orderBy(desc(deploymentLogs.id))
    .offset(keepLines)
    .limit(1);
  if (cut) {
    await db
      .delete(deploymentLogs)
      .where(and(eq(deploymentLogs.deploymentId, deploymentId), lte(deploymentLogs.id, cut.id)));
  }
}

/** The deployment of the caller's organization, or 404. */
export async function visibleDeploymentId(ctx: RequestContext, deploymentId: string): Promise<string> {
  const id = uuidOr404(deploymentId, "deployment");
  const [row] = await ctx.db
    .select({ id: deployments.id })
    .from(deployments)
    .where(
      and(
        eq(deployments.id, id),
        eq(deployments.orgId, actorOf(ctx).orgId),
        sql`${deployments.deletedAt} is null`,
      ),
    )
    .limit(1);
  if (!row) throw notFound("deployment");
  return row.id;
}

/** The last `limit` persisted lines of a deployment, oldest first. */
export async function readDeploymentLogs(
  ctx: RequestContext,
  deploymentId: string,
  options: { limit?: number | undefined; replica?: number | undefined } = {},
): Promise<{ deployment_id: string; lines: LogEntry[] }> {
  const id = await visibleDeploymentId(ctx, deploymentId);
  return { deployment_id: id, lines: await lastLines(ctx, id, options) };
}

export async function lastLines(
  ctx: AppContext,
  deploymentId: string,
  options: { limit?: number | undefined; replica?: number | undefined },
): Promise<LogEntry[]> {
  const limit = Math.min(Math.max(options.limit ?? 200, 1), keepLines);
  const rows = await ctx.db
    .select()
    .from(deploymentLogs)
    .where(
      and(
        eq(deploymentLogs.deploymentId, deploymentId),
        options.replica === undefined ? undefined : eq(deploymentLogs.replica, options.replica),
      ),
    )
    .orderBy(desc(deploymentLogs.id))
    .limit(limit);
  return rows
    .reverse()
    .map((r) => ({ ts: r.ts.toISOString(), replica: r.replica, stream: r.stream, line: r.line }));
}
