// Load reports in PostgreSQL (DATABASE_URL without REDIS_URL): one row per deployment and gateway
// process, upserted at each report; rows past their expiry are left out of the sums and swept.
import { and, gt, inArray, lte, sql } from "drizzle-orm";
import { type DeploymentLoad, idle, type LoadStore } from "#core/ports/load-store.ts";
import type { Executor } from "#db/client.ts";
import { deploymentLoadReports } from "#db/schema/index.ts";

export function databaseLoadStore(db: Executor): LoadStore {
  return {
    kind: "database",
    async report(reporterId, loads, ttlMs) {
      if (loads.size === 0) return;
      const expiresAt = sql`now() + ${`${Math.ceil(ttlMs)} milliseconds`}::interval`;
      await db
        .insert(deploymentLoadReports)
        .values(
          [...loads].map(([deploymentId, load]) => ({
            deploymentId,
            reporterId,
            inFlight: load.inFlight,
            queued: load.queued,
            tokensPerSecond: load.tokensPerSecond,
            expiresAt,
          })),
        )
        .onConflictDoUpdate({
          target: [deploymentLoadReports.deploymentId, deploymentLoadReports.reporterId],
          set: {
            inFlight: sql`excluded.in_flight`,
            queued: sql`excluded.queued`,
            tokensPerSecond: sql`excluded.tokens_per_second`,
            expiresAt: sql`excluded.expires_at`,
          },
        });
    },
    async sum(deploymentIds) {
      const sums = new Map<string, DeploymentLoad>();
      if (deploymentIds.length === 0) return sums;
      await db.delete(deploymentLoadReports).where(lte(deploymentLoadReports.expiresAt, sql`now()`));
      const rows = await db
        .select({
          id: deploymentLoadReports.deploymentId,
          inFlight: sql<number>`sum(${deploymentLoadReports.inFlight})::int`,
          queued: sql<number>`sum(${deploymentLoadReports.queued})::int`,
          tokensPerSecond: sql<number>`sum(${deploymentLoadReports.tokensPerSecond})::float8`,
        })
        .from(deploymentLoadReports)
        .where(
          and(
            inArray(deploymentLoadReports.deploymentId, [...deploymentIds]),
            gt(deploymentLoadReports.expiresAt, sql`now()`),
          ),
        )
        .groupBy(deploymentLoadReports.deploymentId);
      for (const row of rows)
        sums.set(row.id, {
          ...idle,
          inFlight: Number(row.inFlight),
          queued: Number(row.queued),
          tokensPerSecond: Number(row.tokensPerSecond),
        });
      return sums;
    },
  };
}
