// Deployments as the API reads them: views with their pool, replicas and transitions, lists and pages,
// and the endpoints a deployment serves on.

import { and, asc, count, desc, eq, ilike, inArray, isNull } from "drizzle-orm";
import type { DeploymentState } from "#core/domain.ts";
import { notFound } from "#core/errors.ts";
import { uuidOr404 } from "#core/ids.ts";
import type { Executor } from "#db/client.ts";
import { oneRow } from "#db/one-row.ts";
import { type DeploymentRow, deployments, deploymentTransitions, pools, replicas } from "#db/schema/index.ts";
import { actorOf, type RequestContext } from "../context.ts";
import { type DeploymentView, deploymentView } from "./views.ts";

/** One deployment as the API shows it. */
export async function viewOf(db: Executor, row: DeploymentRow): Promise<DeploymentView> {
  return oneRow(await viewsOf(db, [row]));
}

/** Deployments with their pool, replicas and transitions, as the API shows them. */
export async function viewsOf(db: Executor, rows: DeploymentRow[]): Promise<DeploymentView[]> {
  if (rows.length === 0) return [];
  const ids = rows.map((r) => r.id);
  const [poolRows, replicaRows, transitionRows] = await Promise.all([
    db
      .select({ id: pools.id, name: pools.name, provider: pools.provider })
      .from(pools)
      .where(inArray(pools.id, [...new Set(rows.map((r) => r.poolId))])),
    db.select().from(replicas).where(inArray(replicas.deploymentId, ids)),
    db
      .select()
      .from(deploymentTransitions)
      .where(inArray(deploymentTransitions.deploymentId, ids))
      .orderBy(asc(deploymentTransitions.at)),
  ]);
  return rows.map((d) =>
    deploymentView(
      d,
      poolRows.find((p) => p.id === d.poolId),
      replicaRows.filter((r) => r.deploymentId === d.id),
      transitionRows.filter((t) => t.deploymentId === d.id),
    ),
  );
}

/** A live (not deleted) deployment of the organization, or 404. */
export async function deploymentOfOrg(
  db: Executor,
  orgId: string,
  deploymentId: string,
): Promise<DeploymentRow> {
  const id = uuidOr404(deploymentId, "deployment");
  const [row] = await db
    .select()
    .from(deployments)
    .where(and(eq(deployments.id, id), eq(deployments.orgId, orgId), isNull(deployments.deletedAt)))
    .limit(1);
  if (!row) throw notFound("deployment");
  return row;
}

export async function getDeployment(ctx: RequestContext, deploymentId: string): Promise<DeploymentView> {
  const row = await deploymentOfOrg(ctx.db, actorOf(ctx).orgId, deploymentId);
  return viewOf(ctx.db, row);
}

/** The caller's organization's deployments; another `org_id` lists nothing (it is not theirs to see). */
export async function listDeployments(
  ctx: RequestContext,
  filter: { org_id?: string | undefined } = {},
): Promise<{ deployments: DeploymentView[] }> {
  const orgId = actorOf(ctx).orgId;
  if (filter.org_id && filter.org_id !== orgId) return { deployments: [] };
  const rows = await ctx.db
    .select()
    .from(deployments)
    .where(and(eq(deployments.orgId, orgId), isNull(deployments.deletedAt)))
    .orderBy(asc(deployments.createdAt));
  return { deployments: await viewsOf(ctx.db, rows) };
}

export interface DeploymentPageQuery {
  status?: DeploymentState | undefined;
  /** Part of the name, any case. */
  name?: string | undefined;
  limit: number;
  offset: number;
}

/**
 * One page of the organization's deployments, newest first, with the total the filters match: only
 * that page's replicas and transitions are read, so a thousand deployments cost one page.
 */
export async function pageOfDeployments(
  ctx: RequestContext,
  query: DeploymentPageQuery,
): Promise<{ deployments: DeploymentView[]; total: number }> {
  const where = and(
    eq(deployments.orgId, actorOf(ctx).orgId),
    isNull(deployments.deletedAt),
    query.status ? eq(deployments.status, query.status) : undefined,
    query.name ? ilike(deployments.name, `%${query.name.replace(/[\\%_]/g, "\\$&")}%`) : undefined,
  );
  const [rows, [counted]] = await Promise.all([
    ctx.db
      .select()
      .from(deployments)
      .where(where)
      .orderBy(desc(deployments.createdAt), desc(deployments.id))
      .limit(query.limit)
      .offset(query.offset),
    ctx.db.select({ total: count() }).from(deployments).where(where),
  ]);
  return { deployments: await viewsOf(ctx.db, rows), total: Number(counted?.total ?? 0) };
}

/** Endpoints of a deployment's READY replicas, in replica order. */
export async function readyEndpoints(db: Executor, deploymentId: string): Promise<string[]> {
  const rows = await db
    .select({ endpoint: replicas.endpoint })
    .from(replicas)
    .where(and(eq(replicas.deploymentId, deploymentId), eq(replicas.state, "READY")))
    .orderBy(asc(replicas.index));
  return rows.flatMap((r) => (r.endpoint ? [r.endpoint] : []));
}

/** Endpoints of a deployment's replicas that serve now (READY), for whoever routes inference. */
export async function routableEndpoints(db: Executor, orgId: string, name: string): Promise<string[]> {
  const rows = await db
    .select({ endpoint: replicas.endpoint, state: replicas.state })
    .from(replicas)
    .innerJoin(deployments, eq(deployments.id, replicas.deploymentId))
    .where(
      and(
        eq(deployments.orgId, orgId),
        eq(deployments.name, name),
        isNull(deployments.deletedAt),
        eq(deployments.status, "RUNNING"),
        eq(replicas.state, "READY"),
      ),
    )
    .orderBy(asc(replicas.index));
  return rows.flatMap((r) => (r.endpoint ? [r.endpoint] : []));
}
