// Reading and writing one policy of the active organization, organization-wide or for one deployment.
// GET answers what applies at that scope and says where it comes from (`source`), falling back to the
// organization's policy and then to the defaults, so a reader never has to merge anything.
import { and, eq, inArray, isNull, type SQL, sql } from "drizzle-orm";
import { type PolicyType, policyTypes } from "#core/domain.ts";
import { type FieldProblem, invalid, notFound } from "#core/errors.ts";
import { uuidOr404 } from "#core/ids.ts";
import {
  configProblems,
  type PolicyConfig,
  type PolicyConfigs,
  policyDefaults,
  type StoredPolicy,
  storedConfig,
  storedPolicy,
} from "#core/policies.ts";
import { isOneOf, Problems } from "#core/validation.ts";
import type { Executor } from "#db/client.ts";
import {
  apiKeys,
  deployments,
  knowledgeCollections,
  type PolicyRow,
  policies,
  pools,
  promptTemplates,
} from "#db/schema/index.ts";
import { mutate } from "../audit/mutate.ts";
import { actorOf, type RequestContext } from "../context.ts";
import { locateEmbeddingDeployment } from "../knowledge-base/retrieve.ts";
import type { WithKnowledge } from "../knowledge-base/runtime.ts";
import { deploymentOfOrg } from "../orchestration/deployment-queries.ts";
import type { WithOrchestration } from "../orchestration/runtime.ts";

export type PolicySource = "deployment" | "organization" | "default";

export interface PolicyView {
  policy_type: PolicyType;
  deployment_id: string | null;
  /** Budgets only: the API key the budget is for, null for the organization's. */
  api_key_id?: string | null;
  /** The type's config; `{}` for a default that sets nothing. */
  config: PolicyConfig<PolicyType> | Record<string, never>;
  /** null when nothing is set (the defaults apply). */
  updated_at: string | null;
  source: PolicySource;
}

export interface SetPolicyInput {
  deployment_id?: string | undefined;
  api_key_id?: string | undefined;
  config: unknown;
}

/** Where a policy call points: the organization, one deployment, or (budgets only) one API key. */
export interface PolicyScope {
  deployment_id?: string | undefined;
  api_key_id?: string | undefined;
}

interface ResolvedScope {
  deploymentId: string | null;
  apiKeyId: string | null;
}

/** Budgets count spend per organization or per API key (CONTRACTS); no other type has a key scope. */
function scopeProblems(type: PolicyType, scope: PolicyScope): void {
  const problems = new Problems();
  if (scope.api_key_id !== undefined && type !== "budget")
    problems.add("api_key_id", "only a budget policy may be set per API key");
  if (scope.deployment_id !== undefined && type === "budget")
    problems.add("deployment_id", "a budget applies to the organization or to one API key (api_key_id)");
  problems.throwIfAny();
}

const isPolicyType = (value: string): value is PolicyType => isOneOf(policyTypes, value);

export function policyTypeOf(value: string): PolicyType {
  if (!isPolicyType(value)) {
    throw invalid("policy_type", `unknown policy type; known: ${policyTypes.join(", ")}`);
  }
  return value;
}

const scopeOf = (orgId: string, type: PolicyType, scope: ResolvedScope): SQL =>
  and(
    eq(policies.orgId, orgId),
    eq(policies.policyType, type),
    scope.deploymentId ? eq(policies.deploymentId, scope.deploymentId) : isNull(policies.deploymentId),
    scope.apiKeyId ? eq(policies.apiKeyId, scope.apiKeyId) : isNull(policies.apiKeyId),
  ) as SQL;

/** Only budgets have a key scope, so only they say which key (the other types keep CONTRACTS' shape). */
const keyOf = (type: PolicyType, scope: ResolvedScope) =>
  type === "budget" ? { api_key_id: scope.apiKeyId } : {};

const viewOf = (row: PolicyRow, asked: ResolvedScope): PolicyView => ({
  policy_type: row.policyType,
  deployment_id: asked.deploymentId,
  ...keyOf(row.policyType, asked),
  config: storedConfig(row.policyType, row.config),
  updated_at: row.updatedAt.toISOString(),
  source: row.deploymentId || row.apiKeyId ? "deployment" : "organization",
});

/** A deployment named in a policy call must be a live deployment of the organization (else 404). */
async function scopedDeployment(db: Executor, orgId: string, deploymentId: string | undefined) {
  if (deploymentId === undefined) return null;
  return (await deploymentOfOrg(db, orgId, deploymentId)).id;
}

/** An API key named in a budget call must be one of the organization's (else 404; revoked keys count). */
async function scopedApiKey(db: Executor, orgId: string, apiKeyId: string | undefined) {
  if (apiKeyId === undefined) return null;
  const id = uuidOr404(apiKeyId, "API key");
  const [row] = await db
    .select({ id: apiKeys.id })
    .from(apiKeys)
    .where(and(eq(apiKeys.id, id), eq(apiKeys.orgId, orgId)))
    .limit(1);
  if (!row) throw notFound("API key");
  return row.id;
}

async function resolveScope(
  db: Executor,
  orgId: string,
  type: PolicyType,
  scope: PolicyScope,
): Promise<ResolvedScope> {
  scopeProblems(type, scope);
  return {
    deploymentId: await scopedDeployment(db, orgId, scope.deployment_id),
    apiKeyId: await scopedApiKey(db, orgId, scope.api_key_id),
  };
}

export async function getPolicy(
  ctx: RequestContext,
  type: string,
  scope: PolicyScope = {},
): Promise<PolicyView> {
  const policyType = policyTypeOf(type);
  const orgId = actorOf(ctx).orgId;
  const scoped = await resolveScope(ctx.db, orgId, policyType, scope);
  if (scoped.deploymentId || scoped.apiKeyId) {
    const [own] = await ctx.db
      .select()
      .from(policies)
      .where(scopeOf(orgId, policyType, scoped))
      .limit(1);
    if (own) return viewOf(own, scoped);
    // A key's budget does not fall back: the organization's budget applies beside it, not instead.
    if (scoped.apiKeyId) return defaultView(policyType, scoped);
  }
  const [orgWide] = await ctx.db
    .select()
    .from(policies)
    .where(scopeOf(orgId, policyType, { deploymentId: null, apiKeyId: null }))
    .limit(1);
  if (orgWide) return viewOf(orgWide, scoped);
  return defaultView(policyType, scoped);
}

function defaultView(policyType: PolicyType, scoped: ResolvedScope): PolicyView {
  return {
    policy_type: policyType,
    deployment_id: scoped.deploymentId,
    ...keyOf(policyType, scoped),
    config: policyDefaults[policyType],
    updated_at: null,
    source: "default",
  };
}

/** Ids a config refers to must be the organization's own. */
async function referenceProblems(
  ctx: RequestContext & WithOrchestration,
  db: Executor,
  orgId: string,
  deploymentId: string | null,
  policy: StoredPolicy,
): Promise<FieldProblem[]> {
  if (policy.policy_type === "routing" && deploymentId) {
    return fallbackProblems(db, orgId, deploymentId, policy.config.fallbacks ?? []);
  }
  if (policy.policy_type === "rag") {
    const ids = [...new Set(policy.config.collection_ids.map((id) => id.toLowerCase()))];
    if (ids.length === 0) return [];
    const found = await db
      .select({ id: knowledgeCollections.id })
      .from(knowledgeCollections)
      .where(and(eq(knowledgeCollections.orgId, orgId), inArray(knowledgeCollections.id, ids)));
    if (found.length !== ids.length) {
      return [
        {
          field: "config.collection_ids",
          message: "names a collection that does not exist in this organization",
        },
      ];
    }
  }
  if (policy.policy_type === "autoscaling") return autoscalingProblems(ctx, db, deploymentId, policy.config);
  if (policy.policy_type === "prompt") {
    const id = policy.config.template_id;
    if (id === null) return [];
    const [found] = await db
      .select({ id: promptTemplates.id })
      .from(promptTemplates)
      .where(and(eq(promptTemplates.orgId, orgId), eq(promptTemplates.id, id.toLowerCase())))
      .limit(1);
    if (!found)
      return [
        { field: "config.template_id", message: "names a template that does not exist in this organization" },
      ];
  }
  return [];
}

/** Fallbacks are other live deployments of the organization, named as callers name them. */
async function fallbackProblems(
  db: Executor,
  orgId: string,
  deploymentId: string,
  names: string[],
): Promise<FieldProblem[]> {
  if (names.length === 0) return [];
  const found = await db
    .select({ id: deployments.id, name: deployments.name })
    .from(deployments)
    .where(
      and(eq(deployments.orgId, orgId), inArray(deployments.name, names), isNull(deployments.deletedAt)),
    );
  const problems: FieldProblem[] = [];
  names.forEach((name, i) => {
    const match = found.find((d) => d.name === name);
    const field = `config.fallbacks.${i}`;
    if (!match) problems.push({ field, message: `no deployment named ${name} in this organization` });
    else if (match.id === deploymentId)
      problems.push({ field, message: "a deployment cannot fall back to itself" });
  });
  return problems;
}

function throwProblems(list: FieldProblem[]): void {
  const problems = new Problems();
  for (const p of list) problems.add(p.field, p.message);
  problems.throwIfAny();
}

/**
 * Autoscaling is a deployment's own (CONTRACTS), and its pool's provider must be able to run
 * max_replicas of it (the same check as the owner's scale).
 */
async function autoscalingProblems(
  ctx: RequestContext & WithOrchestration,
  db: Executor,
  deploymentId: string | null,
  config: PolicyConfigs["autoscaling"],
): Promise<FieldProblem[]> {
  if (!deploymentId) return [{ field: "deployment_id", message: "autoscaling is set per deployment" }];
  const [row] = await db
    .select({ deployment: deployments, provider: pools.provider })
    .from(deployments)
    .innerJoin(pools, eq(pools.id, deployments.poolId))
    .where(eq(deployments.id, deploymentId))
    .limit(1);
  const provider = row && ctx.orchestration.providers[row.provider];
  if (!row || !provider) return [];
  return (
    provider.validateDeployment?.({
      replicas: config.max_replicas,
      gpuPerReplica: row.deployment.gpuPerReplica,
      configuration: row.deployment.configuration,
    }) ?? []
  )
    .filter((p) => p.field === "replicas")
    .map((p) => ({ field: "config.max_replicas", message: p.message }));
}

export async function setPolicy(
  ctx: RequestContext & WithKnowledge & WithOrchestration,
  type: string,
  input: SetPolicyInput,
): Promise<PolicyView> {
  const policyType = policyTypeOf(type);
  const actor = actorOf(ctx);
  throwProblems(configProblems(policyType, input.config));
  if (policyType === "routing" && input.deployment_id === undefined) {
    throwProblems([
      {
        field: "deployment_id",
        message: "routing is set per deployment: name the deployment that falls back",
      },
    ]);
  }
  // Checked above: from here on the config is its type's.
  const policy = storedPolicy({ policyType, config: input.config });
  const { config } = policy;
  scopeProblems(policyType, input);
  const view = await mutate(ctx, "policy.update", { type: "policy", id: policyType }, async (tx) => {
    const scoped = await resolveScope(tx, actor.orgId, policyType, input);
    const { deploymentId, apiKeyId } = scoped;
    throwProblems(await referenceProblems(ctx, tx, actor.orgId, deploymentId, policy));
    const now = ctx.clock();
    const [row] = await tx
      .insert(policies)
      .values({
        orgId: actor.orgId,
        deploymentId,
        apiKeyId,
        policyType,
        config,
        updatedBy: actor.userId,
        updatedAt: now,
      })
      .onConflictDoUpdate({
        target: deploymentId
          ? [policies.deploymentId, policies.policyType]
          : apiKeyId
            ? [policies.apiKeyId, policies.policyType]
            : [policies.orgId, policies.policyType],
        // The partial unique index of that scope (db/schema/policies.ts).
        targetWhere: deploymentId
          ? sql`deployment_id is not null`
          : apiKeyId
            ? sql`api_key_id is not null`
            : sql`deployment_id is null and api_key_id is null`,
        set: { config, updatedBy: actor.userId, updatedAt: now },
      })
      .returning();
    return {
      result: viewOf(row as PolicyRow, scoped),
      details: {
        policy_type: policyType,
        deployment_id: deploymentId,
        ...(apiKeyId ? { api_key_id: apiKeyId } : {}),
      },
    };
  });
  if (policy.policy_type === "rag") await startEmbedding(ctx, actor.orgId, policy.config);
  // The reconciler applies min and max at its next pass; sooner when it runs in this process.
  if (policyType === "autoscaling") ctx.orchestration.kick();
  return view;
}

/** A rag policy naming an embedding deployment: its collections start being embedded now, not at the first question. */
async function startEmbedding(ctx: RequestContext & WithKnowledge, orgId: string, rag: PolicyConfigs["rag"]) {
  if (!rag.embedding_deployment || rag.collection_ids.length === 0) return;
  const located = await locateEmbeddingDeployment(ctx.db, orgId, rag.embedding_deployment);
  if (located.ok)
    void ctx.knowledge.embedding.schedule(
      located.target,
      rag.collection_ids.map((id) => id.toLowerCase()),
    );
}

/** Removes the policy set at one scope, so the organization's (or the default) applies again. */
export async function deletePolicy(
  ctx: RequestContext,
  type: string,
  scope: PolicyScope = {},
): Promise<{
  policy_type: PolicyType;
  deployment_id: string | null;
  api_key_id?: string | null;
  deleted: true;
}> {
  const policyType = policyTypeOf(type);
  const orgId = actorOf(ctx).orgId;
  scopeProblems(policyType, scope);
  return mutate(ctx, "policy.delete", { type: "policy", id: policyType }, async (tx) => {
    const scoped = await resolveScope(tx, orgId, policyType, scope);
    const removed = await tx
      .delete(policies)
      .where(scopeOf(orgId, policyType, scoped))
      .returning({ id: policies.id });
    if (removed.length === 0) throw notFound("policy");
    return {
      result: {
        policy_type: policyType,
        deployment_id: scoped.deploymentId,
        ...keyOf(policyType, scoped),
        deleted: true as const,
      },
      details: {
        policy_type: policyType,
        deployment_id: scoped.deploymentId,
        ...(scoped.apiKeyId ? { api_key_id: scoped.apiKeyId } : {}),
      },
    };
  });
}
