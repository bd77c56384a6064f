// Deployments as the API sees them: the API writes what is wanted (desired_state, replicas) and
// asks the state machine for the user's moves (start: -> DEPLOYING, terminate: -> STOPPING), so a
// forbidden move is answered at once with 409; the reconciler does the rest (RUNNING, STOPPED,
// FAILED and every replica).

import { eq } from "drizzle-orm";
import { Problems } from "#core/validation.ts";
import { oneRow } from "#db/one-row.ts";
import { type DeploymentRow, deployments, pools } from "#db/schema/index.ts";
import { isUniqueViolation } from "#db/unique-violation.ts";
import { mutate } from "../audit/mutate.ts";
import { actorOf, type RequestContext } from "../context.ts";
import { checkPrice } from "../spend/prices.ts";
import { traced } from "../telemetry/tracing.ts";
import { checkReplicas, type DeployAnswer, type DeployInput } from "./deploy-request.ts";
import { assertNameFree, checkRequest, nameTaken, placementOf, targetPool } from "./deployment-placement.ts";
import { deploymentOfOrg, viewOf } from "./deployment-queries.ts";
import { assertPoolHasRoom } from "./pool-size.ts";
import { assertPoolAcceptsDeployments } from "./pools.ts";
import { providerNamed } from "./providers.ts";
import type { WithOrchestration } from "./runtime.ts";
import { assertDeploymentRemovable, moveDeployment, recordDeploymentCreated } from "./state-machine.ts";
import type { DeploymentView } from "./views.ts";

export interface PriceInput {
  deployment_id: string;
  /** null clears the price; left out keeps it. */
  input_price_per_million?: number | null | undefined;
  output_price_per_million?: number | null | undefined;
  /** Prompt tokens the engine reused (cached_tokens); null: charged at the input price. */
  cached_input_price_per_million?: number | null | undefined;
}

async function deployNow(ctx: RequestContext & WithOrchestration, raw: DeployInput): Promise<DeployAnswer> {
  const actor = actorOf(ctx);
  const { input, name, workloadType } = checkRequest(actor, raw);
  const { pool, provider } = await targetPool(ctx, actor, input.pool_id);
  const placement = await placementOf(ctx, actor, provider, input);

  // Step 4: the row, its first transition and the audit entry, in one transaction.
  const result = await mutate(ctx, "deployment.create", { type: "deployment" }, async (tx) => {
    await assertNameFree(tx, actor.orgId, name);
    await assertPoolHasRoom(tx, pool.id, placement.replicaCount);
    const now = ctx.clock();
    const rows = await tx
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
    const created = oneRow(rows);
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

/** STOPPED or FAILED -> DEPLOYING; the reconciler starts the replicas. */
async function startDeploymentNow(
  ctx: RequestContext & WithOrchestration,
  deploymentId: string,
): Promise<DeploymentView> {
  const actor = actorOf(ctx);
  const view = await mutate(ctx, "deployment.start", { type: "deployment", id: deploymentId }, async (tx) => {
    const row = await deploymentOfOrg(tx, actor.orgId, deploymentId);
    const [pool] = await tx.select().from(pools).where(eq(pools.id, row.poolId)).limit(1);
    if (pool) assertPoolAcceptsDeployments(pool);
    await assertPoolHasRoom(tx, row.poolId, row.replicas, row.id);
    const moved = await moveDeployment(tx, row, "DEPLOYING", `started by ${actor.email}`, ctx.clock());
    await tx.update(deployments).set({ desiredState: "running" }).where(eq(deployments.id, row.id));
    return { result: await viewOf(tx, { ...moved, desiredState: "running" }) };
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
  ctx: RequestContext & WithOrchestration,
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
      configuration: row.configuration,
    }) ?? [])
      problems.add(p.field === "replicas" ? "replicas" : p.field, p.message);
    problems.throwIfAny();
    // A stopped deployment wants its replicas again only when started (checked then).
    if (row.desiredState === "running" && replicas > row.replicas)
      await assertPoolHasRoom(tx, row.poolId, replicas, row.id);
    const updated = oneRow(
      await tx
        .update(deployments)
        .set({ replicas, updatedAt: ctx.clock() })
        .where(eq(deployments.id, row.id))
        .returning(),
    );
    return {
      result: await viewOf(tx, updated),
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
    const updated = oneRow(
      await tx
        .update(deployments)
        .set({ ...change, updatedAt: ctx.clock() })
        .where(eq(deployments.id, row.id))
        .returning(),
    );
    return {
      result: await viewOf(tx, updated),
      details: {
        from: {
          input: row.inputPricePerMillion,
          output: row.outputPricePerMillion,
          cached_input: row.cachedInputPricePerMillion,
        },
        to: {
          input: updated.inputPricePerMillion,
          output: updated.outputPricePerMillion,
          cached_input: updated.cachedInputPricePerMillion,
        },
      },
    };
  });
}

/** RUNNING -> STOPPING; the reconciler stops the replicas, then STOPPED. The record stays. */
async function terminateDeploymentNow(
  ctx: RequestContext & WithOrchestration,
  deploymentId: string,
): Promise<DeploymentView> {
  const actor = actorOf(ctx);
  const view = await mutate(
    ctx,
    "deployment.terminate",
    { type: "deployment", id: deploymentId },
    async (tx) => {
      const row = await deploymentOfOrg(tx, actor.orgId, deploymentId);
      const moved = await moveDeployment(tx, row, "STOPPING", `terminated by ${actor.email}`, ctx.clock());
      await tx.update(deployments).set({ desiredState: "stopped" }).where(eq(deployments.id, row.id));
      return { result: await viewOf(tx, { ...moved, desiredState: "stopped" }) };
    },
  );
  ctx.orchestration.kick();
  return view;
}

/** Removes a STOPPED or FAILED deployment for good: afterwards it is 404 and its name is free. */
async function deleteDeploymentNow(
  ctx: RequestContext & WithOrchestration,
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
