// Placement: a deploy request checked (its schema, the caller, the name free), the pool it targets,
// the engine, replicas and model source it gets. What deployment-commands.ts creates is decided here.

import { and, eq, isNull } from "drizzle-orm";
import { engines } from "#adapters/engines/index.ts";
import { credentialNameOf } from "#adapters/upstream/wire/hosted.ts";
import { type EngineId, engineIds } from "#core/domain.ts";
import { AppError, notFound } from "#core/errors.ts";
import { uuidOr404 } from "#core/ids.ts";
import { isOneOf, Problems } from "#core/validation.ts";
import type { Executor } from "#db/client.ts";
import { type DeploymentRow, deployments, pools } from "#db/schema/index.ts";
import { type Actor, actorOf, type RequestContext } from "../context.ts";
import { providerCredentials } from "../provider-configs/config.ts";
import { checkDeployRequest, type DeployInput, workloadTypes } from "./deploy-request.ts";
import { checkContainerSource, checkModelSource, normalizeModelSource } from "./model-source.ts";
import { assertPoolAcceptsDeployments } from "./pools.ts";
import { providerNamed } from "./providers.ts";
import type { WithOrchestration } from "./runtime.ts";
import { upstreamEndpointProblems } from "./upstream-endpoints.ts";

/** CONTRACTS: the deployment name, the `model` of inference calls. */
export const deploymentNamePattern = /^[A-Za-z0-9][A-Za-z0-9._:/-]{0,127}$/;

/** What the request says once checked: the trimmed name and the workload type, defaulted. */
interface CheckedRequest {
  input: DeployInput;
  name: string;
  workloadType: string;
}

/** Step 1: the request against its schema (services/orchestration/deploy-request.ts) and the caller. */
export function checkRequest(actor: Actor, input: DeployInput): CheckedRequest {
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
  if (!problems.has("workload_type") && !isOneOf(workloadTypes, workloadType)) {
    problems.add("workload_type", `must be one of ${workloadTypes.join(", ")}`);
  }
  if (input.org_id && input.org_id !== actor.orgId)
    problems.add("org_id", "must be your active organization's id");
  problems.throwIfAny();
  return { input, name, workloadType };
}

/** Step 2: the organization's pool it names (404 otherwise), open to deployments, and its provider. */
export async function targetPool(ctx: RequestContext & WithOrchestration, actor: Actor, poolId: string) {
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
export interface Placement {
  engine: EngineId;
  replicaCount: number;
  gpuPerReplica: number;
  configuration: NonNullable<DeployInput["configuration"]>;
  source: string | null;
}

const isEngineId = (engine: string): engine is EngineId => isOneOf(engineIds, engine);

/** Step 3: what the pool's provider can run of this request; every problem named at once. */
export async function placementOf(
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
  configuration: DeploymentRow["configuration"],
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

async function nameIsTaken(db: Executor, orgId: string, name: string): Promise<boolean> {
  const [taken] = await db
    .select({ id: deployments.id })
    .from(deployments)
    .where(and(eq(deployments.orgId, orgId), eq(deployments.name, name), isNull(deployments.deletedAt)))
    .limit(1);
  return taken !== undefined;
}

export async function assertNameFree(db: Executor, orgId: string, name: string): Promise<void> {
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

export const nameTaken = (name: string) =>
  new AppError("already_exists", `a deployment named ${name} already exists`, {
    fields: [{ field: "model_name", message: "is taken" }],
  });
