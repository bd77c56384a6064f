// Replicas wanted and ready per deployment, read from the orchestration state when Prometheus scrapes
// (one grouped query shared by both gauges), so the gauges are never stale and cost nothing between
// scrapes.
import { and, eq, isNull, sql } from "drizzle-orm";
import { Gauge, Registry } from "prom-client";
import { deployments, replicas } from "#db/schema/index.ts";
import type { AppContext } from "../context.ts";

interface Row {
  id: string;
  name: string;
  wanted: number;
  ready: number;
}

export function replicaGauges(app: Pick<AppContext, "db" | "log">): Registry {
  const query = (): Promise<Row[]> =>
    app.db
      .select({
        id: deployments.id,
        name: deployments.name,
        wanted: sql<number>`case when ${deployments.desiredState} = 'running' then ${deployments.replicas} else 0 end`,
        ready: sql<number>`count(${replicas.id})::int`,
      })
      .from(deployments)
      .leftJoin(replicas, and(eq(replicas.deploymentId, deployments.id), eq(replicas.state, "READY")))
      .where(isNull(deployments.deletedAt))
      .groupBy(deployments.id)
      .catch((error: unknown) => {
        app.log.warn("replica gauges not read", { error: String(error) });
        return [];
      });
  // Both gauges of one scrape read the same rows.
  let last: { at: number; rows: Promise<Row[]> } | undefined;
  const rows = () => {
    const now = performance.now();
    if (!last || now - last.at > 1000) last = { at: now, rows: query() };
    return last.rows;
  };

  const registry = new Registry();
  const gauge = (name: string, help: string, value: (row: Row) => number) =>
    new Gauge({
      name,
      help,
      labelNames: ["deployment", "deployment_id"] as const,
      registers: [registry],
      async collect() {
        const current = await rows();
        this.reset();
        for (const row of current)
          this.set({ deployment: row.name, deployment_id: row.id }, Number(value(row)));
      },
    });
  gauge(
    "llm_deployment_replicas_wanted",
    "Replicas the deployment asks for (0 when it is to be stopped).",
    (r) => r.wanted,
  );
  gauge("llm_deployment_replicas_ready", "Replicas of the deployment ready to serve.", (r) => r.ready);
  return registry;
}
