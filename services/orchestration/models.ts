// The model registry: versions of named models, each with its backend and artifact. A deployment
// refers to one as registry://<model_name>/<model_version>.
import { and, asc, eq, isNull } from "drizzle-orm";
import { engineIds } from "#core/domain.ts";
import { AppError, notFound } from "#core/errors.ts";
import { isOneOf, Problems } from "#core/validation.ts";
import { deployments, type ModelRow, models } from "#db/schema/index.ts";
import { mutate } from "../audit/mutate.ts";
import { actorOf, type RequestContext } from "../context.ts";
import { artifactProblem, normalizeModelSource } from "./model-source.ts";
import { type ModelView, modelView } from "./views.ts";

export interface RegisterModelInput {
  model_name: string;
  model_version?: string | undefined;
  backend: string;
  artifact_uri?: string | undefined;
  shared?: boolean | undefined;
  config_json?: ModelRow["config"] | undefined;
}

/** No "/" in names and versions: both appear as path segments (getModel, registry://). */
export const modelNamePattern = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;
export const modelVersionPattern = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
export const defaultModelVersion = "latest";

export async function registerModel(ctx: RequestContext, input: RegisterModelInput): Promise<ModelView> {
  const orgId = actorOf(ctx).orgId;
  const problems = new Problems();
  const name = input.model_name?.trim() ?? "";
  const version = input.model_version?.trim() || defaultModelVersion;
  if (!modelNamePattern.test(name))
    problems.add("model_name", "required: letters, digits, '.', '_', ':' and '-', at most 128");
  if (!modelVersionPattern.test(version))
    problems.add("model_version", "letters, digits, '.', '_' and '-', at most 64");
  if (!isOneOf(engineIds, input.backend)) {
    problems.add("backend", `required, one of ${engineIds.join(", ")}`);
  }
  const artifact = input.artifact_uri?.trim() || undefined;
  const problem = artifact ? artifactProblem(artifact, ctx.config.modelSources) : undefined;
  if (problem) problems.add("artifact_uri", problem);
  problems.throwIfAny();

  return mutate(ctx, "model.register", { type: "model", id: `${name}/${version}` }, async (tx) => {
    const [taken] = await tx
      .select({ id: models.id })
      .from(models)
      .where(and(eq(models.orgId, orgId), eq(models.name, name), eq(models.version, version)))
      .limit(1);
    if (taken) {
      throw new AppError("already_exists", `model ${name} version ${version} is already registered`, {
        fields: [{ field: "model_version", message: "is taken for this model_name" }],
      });
    }
    const [row] = await tx
      .insert(models)
      .values({
        orgId,
        name,
        version,
        backend: input.backend,
        // Paths stored absolute: the deploy-time check compares other organizations' files by path.
        artifactUri: artifact ? normalizeModelSource(artifact) : null,
        shared: input.shared ?? false,
        config: input.config_json ?? {},
      })
      .returning();
    return { result: modelView(row as ModelRow) };
  });
}

export async function getModel(ctx: RequestContext, name: string, version: string): Promise<ModelView> {
  const [row] = await ctx.db
    .select()
    .from(models)
    .where(and(eq(models.orgId, actorOf(ctx).orgId), eq(models.name, name), eq(models.version, version)))
    .limit(1);
  if (!row) throw notFound(`model ${name} version ${version}`);
  return modelView(row);
}

export async function listModelVersions(
  ctx: RequestContext,
  name: string,
): Promise<{ model_name: string; models: ModelView[] }> {
  const rows = await ctx.db
    .select()
    .from(models)
    .where(and(eq(models.orgId, actorOf(ctx).orgId), eq(models.name, name)))
    .orderBy(asc(models.createdAt));
  return { model_name: name, models: rows.map(modelView) };
}

/** Every version of every model of the organization, by name and then age (the dashboard's registry). */
export async function listModels(ctx: RequestContext): Promise<{ models: ModelView[] }> {
  const rows = await ctx.db
    .select()
    .from(models)
    .where(eq(models.orgId, actorOf(ctx).orgId))
    .orderBy(asc(models.name), asc(models.createdAt));
  return { models: rows.map(modelView) };
}

/** Removes one version; 409 while a deployment still names it as its source. */
export async function deleteModel(
  ctx: RequestContext,
  input: { model_name: string; model_version: string },
): Promise<{ model_name: string; model_version: string; deleted: true }> {
  const orgId = actorOf(ctx).orgId;
  const { model_name: name, model_version: version } = input;
  return mutate(ctx, "model.delete", { type: "model", id: `${name}/${version}` }, async (tx) => {
    const [row] = await tx
      .select()
      .from(models)
      .where(and(eq(models.orgId, orgId), eq(models.name, name), eq(models.version, version)))
      .limit(1);
    if (!row) throw notFound(`model ${name} version ${version}`);
    const users = await tx
      .select({ name: deployments.name })
      .from(deployments)
      .where(
        and(
          eq(deployments.orgId, orgId),
          isNull(deployments.deletedAt),
          eq(deployments.inferenceModel, `registry://${name}/${version}`),
        ),
      );
    if (users.length > 0) {
      throw new AppError(
        "failed_precondition",
        `model ${name} version ${version} is the source of deployments: ${users.map((u) => u.name).join(", ")}`,
      );
    }
    await tx.delete(models).where(eq(models.id, row.id));
    return { result: { model_name: name, model_version: version, deleted: true as const } };
  });
}
