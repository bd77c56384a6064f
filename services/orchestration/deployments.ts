// Deployments as the API sees them: the API writes what is wanted (desired_state, replicas) and
// asks the state machine for the user's moves (start: -> DEPLOYING, terminate: -> STOPPING), so a
// forbidden move is answered at once with 409; the reconciler does the rest (RUNNING, STOPPED,
// FAILED and every replica).

import { and, asc, count, desc, eq, ilike, inArray, isNull } from "drizzle-orm";
import { engines } from "#adapters/engines/index.ts";
import { credentialNameOf } from "#adapters/upstream/wire/hosted.ts";
import { AppError, notFound } from "#core/errors.ts";
import { uuidOr404 } from "#core/ids.ts";
import { Problems } from "#core/validation.ts";
import type { Executor } from "#db/client.ts";
import {
  type DeploymentRow,
  type DeploymentState,
  deployments,
  deploymentTransitions,
  type EngineId,
  engineIds,
  pools,
  replicas,
} from "#db/schema/index.ts";
import { isUniqueViolation } from "#db/unique-violation.ts";
import { mutate } from "../audit/mutate.ts";
import { type Actor, actorOf, type RequestContext } from "../context.ts";
import { providerCredentials } from "../provider-configs/config.ts";
import { checkPrice } from "../spend/prices.ts";
import { traced } from "../telemetry/tracing.ts";
import {
  checkDeployRequest,
  checkReplicas,
  type DeployAnswer,
  type DeployInput,
  maxReplicas,
  workloadTypes,
} from "./deploy-request.ts";
import { checkContainerSource, checkModelSource, normalizeModelSource } from "./model-source.ts";
import { assertPoolHasRoom } from "./pool-size.ts";
import { assertPoolAcceptsDeployments } from "./pools.ts";
import { providerNamed } from "./providers.ts";
import { assertDeploymentRemovable, moveDeployment, recordDeploymentCreated } from "./state-machine.ts";
import { upstreamEndpointProblems } from "./upstream-endpoints.ts";
import { type DeploymentView, deploymentView } from "./views.ts";

export interface PriceInput {
  deployment_id: string;
  /** null clears the price; left out keeps it. */
  input_price_per_million?: number | null | undefined;
  output_price_per_million?: number | null | undefined;
  /** Prompt tokens the engine reused (cached_tokens); null: charged at the input price. */
  cached_input_price_per_million?: number | null | undefined;
}

/** CONTRACTS: the deployment name, the `model` of inference calls. */
export const deploymentNamePattern = /^[A-Za-z0-9][A-Za-z0-9._:/-]{0,127}$/;
export { type DeployInput, maxReplicas, workloadTypes };

/** What the request says once checked: the trimmed name and the workload type, defaulted. */
interface CheckedRequest {
  input: DeployInput;
  name: string;
  workloadType: string;
}

/** Step 1: the request against its schema (services/orchestration/deploy-request.ts) and the caller. */
function checkRequest(actor: Actor, input: DeployInput): CheckedRequest {
  const problems = new Problems();
  // The routes and the form have validated already; gRPC has not, so the same schema is checked here,
  // and what it cannot say is added to the same answer (every bad field in one 400).
  checkDeployRequest(input, problems);
  const name = typeof input.model_name === "string" ? input.model_name.trim() : "";
  // A field the schema has named already is not named twice.
  if (!problems.has("model_name")) {
    if (name === "") problems.add("model_name", "is required");
    else if (!deploymentNamePattern.test(name))
      problems.add(
        "model_name",
        "letters, digits and . _ : / -, at most 128, starting with a letter or digit",
      );
  }
  if (!input.pool_id && !problems.has("pool_id")) problems.add("pool_id", "is required");
  const workloadType = input.workload_type || "inference";
  if (!problems.has("workload_type") && !(workloadTypes as readonly string[]).includes(workloadType)) {
    problems.add("workload_type", `must be one of ${workloadTypes.join(", ")}`);
  }
  if (input.org_id && input.org_id !== actor.orgId)
    problems.add("org_id", "must be your active organization's id");
  problems.throwIfAny();
  return { input, name, workloadType };
}

/** Step 2: the organization's pool it names (404 otherwise), open to deployments, and its provider. */
async function targetPool(ctx: RequestContext, actor: Actor, poolId: string) {
  const pool = await ctx.db
    .select()
    .from(pools)
    .where(and(eq(pools.id, uuidOr404(poolId, "pool")), eq(pools.orgId, actor.orgId)))
    .limit(1)
    .then((rows) => rows[0]);
  if (!pool) throw notFound("pool");
  assertPoolAcceptsDeployments(pool);
  return { pool, provider: providerNamed(ctx, pool.provider, "pool_id") };
}

type Provider = ReturnType<typeof providerNamed>;

/** What the provider will run: the engine, the replica and GPU counts, the model source. */
interface Placement {
  engine: EngineId;
  replicaCount: number;
  gpuPerReplica: number;
  configuration: NonNullable<DeployInput["configuration"]>;
  source: string | null;
}

const isEngineId = (engine: string): engine is EngineId => (engineIds as readonly string[]).includes(engine);

/** Step 3: what the pool's provider can run of this request; every problem named at once. */
async function placementOf(
  ctx: RequestContext,
  actor: Actor,
  provider: Provider,
  input: DeployInput,
): Promise<Placement> {
  const problems = new Problems();
  const configuration = input.configuration ?? {};
  const engine = input.engine || provider.capabilities.engines[0];
  if (!engine || !isEngineId(engine)) {
    problems.add("engine", `unknown engine "${engine ?? ""}" (known: ${engineIds.join(", ")})`);
  } else if (!engines[engine]) {
    // A hosted API's wire format whose adapter this build lacks (adapters/upstream/wire/index.ts).
    problems.add("engine", `this installation has no adapter for engine ${engine}`);
  } else if (!provider.capabilities.engines.includes(engine)) {
    problems.add(
      "engine",
      `the ${provider.id} provider runs ${provider.capabilities.engines.join(", ") || "no engine"}, not ${engine}`,
    );
  }
  // Checked against the pool's provider: where nothing runs an image (hosted upstreams), none is needed.
  if (!problems.has("image") && !input.image?.trim() && provider.capabilities.needsImage !== false) {
    problems.add("image", "is required");
  }
  const replicaCount = input.replicas ?? provider.defaultReplicas?.(configuration) ?? 1;
  const gpuPerReplica = input.gpu_per_replica ?? 0;
  if (gpuPerReplica > 0 && !provider.capabilities.gpus) {
    problems.add("gpu_per_replica", `the ${provider.id} provider places no GPUs`);
  }
  for (const p of provider.validateDeployment?.({ replicas: replicaCount, gpuPerReplica, configuration }) ??
    []) {
    problems.add(p.field, p.message);
  }
  for (const p of await upstreamEndpointProblems(
    ctx,
    actor,
    provider.upstreamEndpoints?.(configuration) ?? [],
  ))
    problems.add(p.field, p.message);
  await checkCredentialNamed(ctx, actor, provider, configuration, problems);
  const source = await modelSourceOf(ctx, actor, provider, input.inference_model, problems);
  problems.throwIfAny();
  // No problem was added, so the engine is a known one.
  if (!engine || !isEngineId(engine)) throw new AppError("internal", "engine checked above");
  return { engine, replicaCount, gpuPerReplica, configuration, source };
}

/**
 * A hosted deployment's `configuration.credential` names a credential of the organization's
 * configuration for the pool's provider (docs/providers.md "Hosted upstreams"); a name that is not
 * there is refused now rather than discovered as the upstream's 401.
 */
async function checkCredentialNamed(
  ctx: RequestContext,
  actor: Actor,
  provider: Provider,
  configuration: Record<string, unknown>,
  problems: Problems,
): Promise<void> {
  const name = credentialNameOf(configuration);
  if (!name || problems.has("configuration.credential")) return;
  const stored = await providerCredentials(ctx, actor.orgId, provider.id);
  if (stored?.[name] === undefined) {
    problems.add(
      "configuration.credential",
      `no credential "${name}" in the ${provider.id} provider configuration (POST /management/config/providers)`,
    );
  }
}

/** The model the provider loads (a file it must be able to read) or runs (a container source). */
async function modelSourceOf(
  ctx: RequestContext,
  actor: Actor,
  provider: Provider,
  given: string | undefined,
  problems: Problems,
): Promise<string | null> {
  let source: string | null = given?.trim() || null;
  const needsFile = provider.capabilities.needsModelFile;
  if (needsFile && !source)
    problems.add("inference_model", `is required: the model the ${provider.id} provider loads`);
  else if (source) {
    try {
      if (needsFile) {
        source = normalizeModelSource(source);
        await checkModelSource(ctx.db, actor.orgId, source, ctx.config.modelSources);
      } else checkContainerSource(source, ctx.config.modelSources);
    } catch (error) {
      const fields = error instanceof AppError ? error.details?.fields : undefined;
      if (!fields) throw error;
      for (const f of fields) problems.add(f.field, f.message);
    }
  }
  return source;
}

async function deployNow(ctx: RequestContext, raw: DeployInput): Promise<DeployAnswer> {
  const actor = actorOf(ctx);
  const { input, name, workloadType } = checkRequest(actor, raw);
  const { pool, provider } = await targetPool(ctx, actor, input.pool_id);
  const placement = await placementOf(ctx, actor, provider, input);

  // Step 4: the row, its first transition and the audit entry, in one transaction.
  const result = await mutate(ctx, "deployment.create", { type: "deployment" }, async (tx) => {
    await assertNameFree(tx, actor.orgId, name);
    await assertPoolHasRoom(tx, pool.id, placement.replicaCount);
    const now = ctx.clock();
    const [row] = await tx
      .insert(deployments)
      .values({
        orgId: actor.orgId,
        name,
        modelVersion: input.model_version || null,
        poolId: pool.id,
        engine: placement.engine,
        workloadType,
        inferenceModel: placement.source,
        image: input.image?.trim() ?? "",
        replicas: placement.replicaCount,
        gpuPerReplica: placement.gpuPerReplica,
        configuration: placement.configuration,
        ownerId: input.owner_id || actor.userId,
        inputPricePerMillion: input.input_price_per_million ?? null,
        outputPricePerMillion: input.output_price_per_million ?? null,
        desiredState: "running",
        status: "DEPLOYING",
        createdAt: now,
        updatedAt: now,
      })
      .returning()
      .catch((error: unknown) => {
        // Two deploys of one name at once: the unique index decides.
        if (isUniqueViolation(error)) throw nameTaken(name);
        throw error;
      });
    const created = row as DeploymentRow;
    await recordDeploymentCreated(tx, created.id, now);
    return {
      result: { deployment_id: created.id, status: "DEPLOYING" as const },
      target: { type: "deployment", id: created.id },
      details: { name, pool_id: pool.id, engine: placement.engine, replicas: placement.replicaCount },
    };
  });
  ctx.orchestration.kick();
  return result;
}

async function nameIsTaken(db: Executor, orgId: string, name: string): Promise<boolean> {
  const [taken] = await db
    .select({ id: deployments.id })
    .from(deployments)
    .where(and(eq(deployments.orgId, orgId), eq(deployments.name, name), isNull(deployments.deletedAt)))
    .limit(1);
  return taken !== undefined;
}

async function assertNameFree(db: Executor, orgId: string, name: string): Promise<void> {
  if (await nameIsTaken(db, orgId, name)) throw nameTaken(name);
}

/** Whether a deployment could be created with this name now (the dashboard checks as you type). */
export async function deploymentNameStatus(
  ctx: RequestContext,
  name: string,
): Promise<"available" | "taken" | "invalid"> {
  const trimmed = name.trim();
  if (!deploymentNamePattern.test(trimmed)) return "invalid";
  return (await nameIsTaken(ctx.db, actorOf(ctx).orgId, trimmed)) ? "taken" : "available";
}

const nameTaken = (name: string) =>
  new AppError("already_exists", `a deployment named ${name} already exists`, {
    fields: [{ field: "model_name", message: "is taken" }],
  });

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
  return (await viewsOf(ctx.db, [row]))[0] as DeploymentView;
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

/** STOPPED or FAILED -> DEPLOYING; the reconciler starts the replicas. */
async function startDeploymentNow(ctx: RequestContext, deploymentId: string): Promise<DeploymentView> {
  const actor = actorOf(ctx);
  const view = await mutate(ctx, "deployment.start", { type: "deployment", id: deploymentId }, async (tx) => {
    const row = await deploymentOfOrg(tx, actor.orgId, deploymentId);
    const [pool] = await tx.select().from(pools).where(eq(pools.id, row.poolId)).limit(1);
    if (pool) assertPoolAcceptsDeployments(pool);
    await assertPoolHasRoom(tx, row.poolId, row.replicas, row.id);
    const moved = await moveDeployment(tx, row, "DEPLOYING", `started by ${actor.email}`, ctx.clock());
    await tx.update(deployments).set({ desiredState: "running" }).where(eq(deployments.id, row.id));
    return { result: (await viewsOf(tx, [{ ...moved, desiredState: "running" }]))[0] as DeploymentView };
  });
  ctx.orchestration.kick();
  return view;
}

/**
 * How many replicas a deployment wants, in any state but deleted: the reconciler starts or stops the
 * difference (at the provider, for remote pools) while the deployment keeps its status; a stopped
 * deployment starts with the new count.
 */
async function scaleDeploymentNow(
  ctx: RequestContext,
  deploymentId: string,
  replicas: number,
): Promise<DeploymentView> {
  const actor = actorOf(ctx);
  const problems = new Problems();
  checkReplicas(replicas, problems);
  problems.throwIfAny();
  const view = await mutate(ctx, "deployment.scale", { type: "deployment", id: deploymentId }, async (tx) => {
    const row = await deploymentOfOrg(tx, actor.orgId, deploymentId);
    const [pool] = await tx.select().from(pools).where(eq(pools.id, row.poolId)).limit(1);
    const provider = pool ? providerNamed(ctx, pool.provider, "deployment_id") : undefined;
    for (const p of provider?.validateDeployment?.({
      replicas,
      gpuPerReplica: row.gpuPerReplica,
      configuration: row.configuration as Record<string, unknown>,
    }) ?? [])
      problems.add(p.field === "replicas" ? "replicas" : p.field, p.message);
    problems.throwIfAny();
    // A stopped deployment wants its replicas again only when started (checked then).
    if (row.desiredState === "running" && replicas > row.replicas)
      await assertPoolHasRoom(tx, row.poolId, replicas, row.id);
    const [updated] = await tx
      .update(deployments)
      .set({ replicas, updatedAt: ctx.clock() })
      .where(eq(deployments.id, row.id))
      .returning();
    return {
      result: (await viewsOf(tx, [updated as DeploymentRow]))[0] as DeploymentView,
      details: { from: row.replicas, to: replicas },
    };
  });
  ctx.orchestration.kick();
  return view;
}

/**
 * Sets or clears a deployment's token prices; the inference gateway charges them from its next
 * context refresh (within a second). Requests already logged keep the cost they had.
 */
export async function setDeploymentPrice(ctx: RequestContext, input: PriceInput): Promise<DeploymentView> {
  const actor = actorOf(ctx);
  const problems = new Problems();
  checkPrice(problems, "input_price_per_million", input.input_price_per_million);
  checkPrice(problems, "output_price_per_million", input.output_price_per_million);
  checkPrice(problems, "cached_input_price_per_million", input.cached_input_price_per_million);
  if (
    input.input_price_per_million === undefined &&
    input.output_price_per_million === undefined &&
    input.cached_input_price_per_million === undefined
  )
    problems.add(
      "input_price_per_million",
      "give input_price_per_million, output_price_per_million, cached_input_price_per_million or several",
    );
  problems.throwIfAny();
  const change: Partial<
    Pick<DeploymentRow, "inputPricePerMillion" | "outputPricePerMillion" | "cachedInputPricePerMillion">
  > = {};
  if (input.cached_input_price_per_million !== undefined)
    change.cachedInputPricePerMillion = input.cached_input_price_per_million;
  if (input.input_price_per_million !== undefined)
    change.inputPricePerMillion = input.input_price_per_million;
  if (input.output_price_per_million !== undefined)
    change.outputPricePerMillion = input.output_price_per_million;
  return mutate(ctx, "deployment.price", { type: "deployment", id: input.deployment_id }, async (tx) => {
    const row = await deploymentOfOrg(tx, actor.orgId, input.deployment_id);
    const [updated] = await tx
      .update(deployments)
      .set({ ...change, updatedAt: ctx.clock() })
      .where(eq(deployments.id, row.id))
      .returning();
    return {
      result: (await viewsOf(tx, [updated as DeploymentRow]))[0] as DeploymentView,
      details: {
        from: {
          input: row.inputPricePerMillion,
          output: row.outputPricePerMillion,
          cached_input: row.cachedInputPricePerMillion,
        },
        to: {
          input: (updated as DeploymentRow).inputPricePerMillion,
          output: (updated as DeploymentRow).outputPricePerMillion,
          cached_input: (updated as DeploymentRow).cachedInputPricePerMillion,
        },
      },
    };
  });
}

/** RUNNING -> STOPPING; the reconciler stops the replicas, then STOPPED. The record stays. */
async function terminateDeploymentNow(ctx: RequestContext, deploymentId: string): Promise<DeploymentView> {
  const actor = actorOf(ctx);
  const view = await mutate(
    ctx,
    "deployment.terminate",
    { type: "deployment", id: deploymentId },
    async (tx) => {
      const row = await deploymentOfOrg(tx, actor.orgId, deploymentId);
      const moved = await moveDeployment(tx, row, "STOPPING", `terminated by ${actor.email}`, ctx.clock());
      await tx.update(deployments).set({ desiredState: "stopped" }).where(eq(deployments.id, row.id));
      return { result: (await viewsOf(tx, [{ ...moved, desiredState: "stopped" }]))[0] as DeploymentView };
    },
  );
  ctx.orchestration.kick();
  return view;
}

/** Removes a STOPPED or FAILED deployment for good: afterwards it is 404 and its name is free. */
async function deleteDeploymentNow(
  ctx: RequestContext,
  deploymentId: string,
): Promise<{ deployment_id: string; deleted: true }> {
  const orgId = actorOf(ctx).orgId;
  const result = await mutate(
    ctx,
    "deployment.delete",
    { type: "deployment", id: deploymentId },
    async (tx) => {
      const row = await deploymentOfOrg(tx, orgId, deploymentId);
      assertDeploymentRemovable(row.status);
      await tx
        .update(deployments)
        .set({ deletedAt: ctx.clock(), desiredState: "stopped" })
        .where(eq(deployments.id, row.id));
      return { result: { deployment_id: row.id, deleted: true as const } };
    },
  );
  ctx.orchestration.kick();
  return result;
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
  return rows.filter((r) => r.endpoint).map((r) => r.endpoint as string);
}

// Each change of a deployment is a span when tracing is on (services/telemetry/tracing.ts).
const deploymentId = (_ctx: RequestContext, id: string) => ({ "llm.deployment.id": id });
export const deploy = traced("deployment deploy", deployNow, (_ctx, input) => ({
  "llm.deployment.name": input.model_name ?? "",
  "llm.pool.id": input.pool_id ?? "",
}));
export const startDeployment = traced("deployment start", startDeploymentNow, deploymentId);
export const scaleDeployment = traced("deployment scale", scaleDeploymentNow, deploymentId);
export const terminateDeployment = traced("deployment terminate", terminateDeploymentNow, deploymentId);
export const deleteDeployment = traced("deployment delete", deleteDeploymentNow, deploymentId);
