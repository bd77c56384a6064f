// Inference logs: written in batches by the inference gateway (through /internal/logs/create or in
// process), read by the management API per deployment or across the organization, newest first, in
// pages cut at a position (`seq`), so rows written while someone pages do not shift what they see.
import { and, desc, eq, gte, inArray, lt, type SQL } from "drizzle-orm";
import type { InferenceLogEntryInput, RetrievalNote } from "#contracts/internal/inference-log.ts";
import { invalid, notFound } from "#core/errors.ts";
import { isUuid } from "#core/ids.ts";
import type { Executor } from "#db/client.ts";
import { executePrepared } from "#db/prepared.ts";
import { auditLogs, deployments, type InferenceLogRow, inferenceLogs, replicas } from "#db/schema/index.ts";
import { actorOf, type RequestContext } from "../context.ts";
import { endpointForLog } from "../inference/log-endpoint.ts";
import { deploymentOfOrg } from "../orchestration/deployment-queries.ts";
import { logAndRollUp } from "./rollup-sql.ts";

export const logPageSize = { default: 50, max: 500 } as const;
/** Rows per INSERT statement: bounds the size of one JSON parameter. */
const insertChunk = 2000;

export interface InferenceLogView {
  id: string;
  request_id: string;
  created_at: string;
  deployment_id: string | null;
  api_key_id: string | null;
  key_prefix: string | null;
  model: string;
  status: number;
  error_code: string | null;
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  /** Prompt tokens the engine reused from its prefix cache (its usage's `cached_tokens`). */
  cached_tokens: number;
  latency_ms: number;
  /** What the request cost at its deployment's prices, in their currency; 0 when unpriced. */
  cost: number;
  /** Until the first token was ready; null when none was (refused, failed, embeddings). */
  ttft_ms: number | null;
  stream: boolean;
  guardrails: InferenceLogRow["guardrails"];
  /** How retrieval found the passages it added, and why it fell back to full text, if it did. */
  retrieval: RetrievalNote | null;
  /** The deployment that answered (a fallback's when one served instead); null when none did. */
  served_by_deployment_id: string | null;
  served_by: string | null;
  /** The response cache's part: hit (no model ran, cost 0) or miss; null when no cache policy applied. */
  cache?: "hit" | "miss" | null;
  /** A hit's tokens that no model computed again. */
  cache_saved_tokens?: number;
  /** The base URL of the replica that answered (no credentials); null when none did. */
  served_by_endpoint: string | null;
}

export interface LogPage {
  items: InferenceLogView[];
  /** Pass as `cursor` for the next (older) page; null on the last page. */
  next_cursor: string | null;
}

export interface LogQuery {
  limit?: number | undefined;
  cursor?: string | undefined;
  /** `ok`: answered (status below 400); `error`: refused or failed. */
  outcome?: "ok" | "error" | undefined;
}

const idOrNull = (value: string | null | undefined, field: string): string | null => {
  if (value === undefined || value === null) return null;
  if (!isUuid(value)) throw invalid(field, "is not a UUID");
  return value.toLowerCase();
};

const count = (n: number | null | undefined) => Math.max(0, Math.round(n ?? 0));

/** An ISO date-time, as UTC to the millisecond: what the log row keeps and its rollups count. */
const timestampOf = (value: string, field: string): string => {
  const at = Date.parse(value);
  if (Number.isNaN(at)) throw invalid(field, "is not a date-time");
  return new Date(at).toISOString();
};

export async function writeInferenceLogs(
  ctx: { db: Executor },
  entries: InferenceLogEntryInput[],
): Promise<{ written: number }> {
  // When an entry does not say when it was made, it was made now: filled in here rather than by the
  // database, so the rollups added up below (rollUpBatch) and the rows agree on its minute.
  const now = new Date().toISOString();
  const rows = entries.map((e, i) => ({
    id: idOrNull(e.id, `entries.${i}.id`) ?? Bun.randomUUIDv7(),
    request_id: e.request_id,
    org_id: idOrNull(e.org_id, `entries.${i}.org_id`),
    deployment_id: idOrNull(e.deployment_id, `entries.${i}.deployment_id`),
    api_key_id: idOrNull(e.api_key_id, `entries.${i}.api_key_id`),
    key_prefix: e.key_prefix ?? null,
    model: e.model,
    status: e.status,
    error_code: e.error_code ?? null,
    prompt_tokens: count(e.prompt_tokens),
    completion_tokens: count(e.completion_tokens),
    total_tokens: count(e.total_tokens ?? (e.prompt_tokens ?? 0) + (e.completion_tokens ?? 0)),
    cached_tokens: count(e.cached_tokens),
    latency_ms: Math.max(0, e.latency_ms ?? 0),
    cost: Number.isFinite(e.cost) ? Math.max(0, e.cost as number) : 0,
    stream: e.stream ?? false,
    guardrails: e.guardrails ?? {},
    retrieval: e.retrieval ?? null,
    served_by_deployment_id: idOrNull(e.served_by_deployment_id, `entries.${i}.served_by_deployment_id`),
    served_by: e.served_by ?? null,
    cache: e.cache ?? null,
    cache_saved_tokens: count(e.cache_saved_tokens),
    served_by_endpoint: endpointForLog(e.served_by_endpoint) ?? null,
    ttft_ms: e.ttft_ms === undefined || e.ttft_ms === null ? null : Math.max(0, e.ttft_ms),
    created_at: e.created_at ? timestampOf(e.created_at, `entries.${i}.created_at`) : now,
  }));
  // One statement whatever the batch's size: the rows travel as one JSON parameter, so the query is
  // built and prepared once instead of per batch (building a 500-row VALUES list dominated the
  // gateway's CPU profile under load). The same statement adds the batch to the per-minute and per-hour
  // rollups (services/inference-logs/rollup-sql.ts), added up here first, a few rows per batch: a
  // statement is atomic, so the logs and their rollups are written together or not at all, on
  // PostgreSQL and PGlite alike. `json`, not `jsonb`: the parameter is read once, so building jsonb's
  // binary form of the whole batch first only cost time. Prepared once (db/prepared.ts): planning it
  // cost more than writing a small batch.
  for (let start = 0; start < rows.length; start += insertChunk) {
    const chunk = rows.slice(start, start + insertChunk);
    await executePrepared(ctx.db, logAndRollUp(JSON.stringify(chunk), chunk));
  }
  await auditGuardrailFindings(ctx, entries);
  return { written: rows.length };
}

/** A guardrail stage's decision as the inference log keeps it: offsets and types, never text. */
export interface LoggedDecision {
  action?: string;
  findings?: { scanner?: string; type?: string }[];
  error?: string;
  /** The classifier's hazard categories, when it named any. */
  categories?: string[];
}

/**
 * A guardrail that found something is an event an administrator reviews: one audit record per
 * request and stage, written with the logs (after the answer, so async mode costs the caller nothing).
 * Scanner names, types and counts only: never the text a finding points at.
 */
async function auditGuardrailFindings(
  ctx: { db: Executor },
  entries: InferenceLogEntryInput[],
): Promise<void> {
  const records = entries.flatMap((e) =>
    (["input", "output", "classifier"] as const).flatMap((stage) => {
      const decision = (e.guardrails as Record<string, LoggedDecision | undefined> | undefined)?.[stage];
      // The classifier's verdict is one finding of its own when it did not allow (or could not answer).
      const findings =
        stage === "classifier"
          ? decision && decision.action !== "allow"
            ? decision.error
              ? [{ scanner: "classifier", type: "unavailable" }]
              : (decision.categories ?? ["unsafe"]).map((type) => ({ scanner: "classifier", type }))
            : []
          : (decision?.findings ?? []);
      if (!e.org_id || findings.length === 0) return [];
      return [
        {
          orgId: e.org_id,
          actorId: null,
          actorLabel: e.key_prefix ?? null,
          action: "guardrails.finding",
          targetType: "deployment",
          targetId: e.deployment_id ?? null,
          outcome: "success" as const,
          details: {
            stage,
            action: decision?.action ?? "log",
            findings: findings.length,
            scanners: [...new Set(findings.map((f) => f.scanner))],
            types: [...new Set(findings.map((f) => f.type))],
            status: e.status,
          },
          requestId: e.request_id,
        },
      ];
    }),
  );
  if (records.length > 0) await ctx.db.insert(auditLogs).values(records);
}

const viewOf = (row: InferenceLogRow): InferenceLogView => ({
  id: row.id,
  request_id: row.requestId,
  created_at: row.createdAt.toISOString(),
  deployment_id: row.deploymentId,
  api_key_id: row.apiKeyId,
  key_prefix: row.keyPrefix,
  model: row.model,
  status: row.status,
  error_code: row.errorCode,
  prompt_tokens: row.promptTokens,
  completion_tokens: row.completionTokens,
  total_tokens: row.totalTokens,
  cached_tokens: row.cachedTokens,
  latency_ms: row.latencyMs,
  cost: row.cost,
  ttft_ms: row.ttftMs,
  stream: row.stream,
  guardrails: row.guardrails,
  retrieval: row.retrieval as RetrievalNote | null,
  served_by_deployment_id: row.servedByDeploymentId,
  served_by: row.servedBy,
  cache: row.cache,
  cache_saved_tokens: row.cacheSavedTokens,
  served_by_endpoint: row.servedByEndpoint,
});

async function page(ctx: RequestContext, where: SQL[], query: LogQuery): Promise<LogPage> {
  const limit = Math.min(query.limit ?? logPageSize.default, logPageSize.max);
  if (query.cursor !== undefined) {
    if (!/^\d{1,18}$/.test(query.cursor))
      throw invalid("query.cursor", "is not a cursor this endpoint returned");
    where.push(lt(inferenceLogs.seq, Number(query.cursor)));
  }
  const rows = await ctx.db
    .select()
    .from(inferenceLogs)
    .where(and(...where, ...outcomeFilter(query.outcome)))
    .orderBy(desc(inferenceLogs.seq))
    .limit(limit + 1);
  const more = rows.length > limit;
  const shown = more ? rows.slice(0, limit) : rows;
  return { items: shown.map(viewOf), next_cursor: more ? String(shown[shown.length - 1]?.seq) : null };
}

export async function deploymentInferenceLogs(
  ctx: RequestContext,
  deploymentId: string,
  query: LogQuery,
): Promise<LogPage> {
  const orgId = actorOf(ctx).orgId;
  const deployment = await deploymentOfOrg(ctx.db, orgId, deploymentId);
  return page(ctx, [eq(inferenceLogs.orgId, orgId), eq(inferenceLogs.deploymentId, deployment.id)], query);
}

/**
 * One log entry of the actor's organization, with the names of the deployments it names (the one
 * asked for and the one that served; a deleted one by its last name) and the replica that answered,
 * when it is still there. Another organization's entry, or an id that is no UUID, is not found.
 */
export async function inferenceLogEntry(
  ctx: RequestContext,
  logId: string,
): Promise<{
  entry: InferenceLogView;
  deployments: Record<string, DeploymentLabel>;
  replica: ServingReplica | null;
}> {
  const orgId = actorOf(ctx).orgId;
  if (!isUuid(logId)) throw notFound("inference log entry");
  const [row] = await ctx.db
    .select()
    .from(inferenceLogs)
    .where(and(eq(inferenceLogs.orgId, orgId), eq(inferenceLogs.id, logId)))
    .limit(1);
  if (!row) throw notFound("inference log entry");
  const ids = [row.deploymentId, row.servedByDeploymentId].filter((id): id is string => id !== null);
  const named =
    ids.length === 0
      ? []
      : await ctx.db
          .select({ id: deployments.id, name: deployments.name, deletedAt: deployments.deletedAt })
          .from(deployments)
          .where(and(eq(deployments.orgId, orgId), inArray(deployments.id, ids)));
  const servedByOurs = named.some((d) => d.id === row.servedByDeploymentId);
  return {
    entry: viewOf(row),
    deployments: Object.fromEntries(
      named.map((d) => [d.id, { name: d.name, deleted: d.deletedAt !== null }]),
    ),
    replica: servedByOurs ? await servingReplica(ctx.db, row) : null,
  };
}

/** The replica that answered a request, as the deployment's page numbers its replicas. */
export interface ServingReplica {
  index: number;
}

/**
 * The served deployment's replica at the logged base URL, when one is still there and was started
 * before the request: a replica scaled away or restarted on another port since is not found, and a
 * later replica that took the same port is not taken for it. The log keeps the URL, not the replica's
 * id: the gateway knows replicas by their URLs only (InferenceContext.endpoints).
 */
async function servingReplica(db: Executor, row: InferenceLogRow): Promise<ServingReplica | null> {
  if (!row.servedByDeploymentId || !row.servedByEndpoint) return null;
  const candidates = await db
    .select({ index: replicas.index, endpoint: replicas.endpoint, startedAt: replicas.startedAt })
    .from(replicas)
    .where(eq(replicas.deploymentId, row.servedByDeploymentId));
  const found = candidates.find(
    (r) =>
      endpointForLog(r.endpoint) === row.servedByEndpoint &&
      (r.startedAt === null || r.startedAt.getTime() <= row.createdAt.getTime()),
  );
  return found ? { index: found.index } : null;
}

/** A deployment as a log entry names it: its name, and whether it was deleted since. */
export interface DeploymentLabel {
  name: string;
  deleted: boolean;
}

export async function recentInferenceLogs(ctx: RequestContext, query: LogQuery): Promise<LogPage> {
  return page(ctx, [eq(inferenceLogs.orgId, actorOf(ctx).orgId)], query);
}

const outcomeFilter = (outcome: LogQuery["outcome"]): SQL[] =>
  outcome === "ok"
    ? [lt(inferenceLogs.status, 400)]
    : outcome === "error"
      ? [gte(inferenceLogs.status, 400)]
      : [];
