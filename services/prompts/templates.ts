// Prompt templates of the active organization. A template's id is stable; every update adds a version
// (the old ones are kept and readable), and lists show each template at its latest version.
import { and, asc, desc, eq } from "drizzle-orm";
import { AppError, notFound } from "#core/errors.ts";
import { uuidOr404 } from "#core/ids.ts";
import { Problems } from "#core/validation.ts";
import type { Executor } from "#db/client.ts";
import { oneRow } from "#db/one-row.ts";
import {
  type PromptTemplateRow,
  type PromptTemplateVersionRow,
  promptTemplates,
  promptTemplateVersions,
} from "#db/schema/index.ts";
import { isUniqueViolation } from "#db/unique-violation.ts";
import { mutate } from "../audit/mutate.ts";
import { actorOf, type RequestContext } from "../context.ts";
import { refuseIfReferenced } from "../policy-references.ts";

export const inputPlaceholder = "{{input}}";
export const contextPlaceholder = "{{context}}";

export interface PromptTemplateView {
  id: string;
  name: string;
  system_prompt: string | null;
  user_template: string | null;
  version: number;
  created_at: string;
  /** When this version was made. */
  updated_at: string;
}

export interface CreateTemplateInput {
  name: string;
  system_prompt?: string | null | undefined;
  user_template?: string | null | undefined;
}

/** Left out: as in the latest version; null: removed. */
export type UpdateTemplateInput = Partial<CreateTemplateInput>;

const viewOf = (template: PromptTemplateRow, version: PromptTemplateVersionRow): PromptTemplateView => ({
  id: template.id,
  name: version.name,
  system_prompt: version.systemPrompt,
  user_template: version.userTemplate,
  version: version.version,
  created_at: template.createdAt.toISOString(),
  updated_at: version.createdAt.toISOString(),
});

/** Blank text is no text. */
const textOrNull = (value: string | null | undefined): string | null => (value?.trim() ? value : null);
/** An update's field: left out keeps the current value. */
const keepOr = (given: string | null | undefined, current: string | null) =>
  given === undefined ? current : textOrNull(given);

function checkContent(name: string, systemPrompt: string | null, userTemplate: string | null): void {
  const problems = new Problems();
  if (name.trim() === "") problems.add("name", "must not be blank");
  if (userTemplate !== null && !userTemplate.includes(inputPlaceholder)) {
    problems.add("user_template", `must contain ${inputPlaceholder}, where the caller's message goes`);
  }
  if (systemPrompt === null && userTemplate === null) {
    problems.add("system_prompt", "a template needs a system_prompt, a user_template or both");
  }
  problems.throwIfAny();
}

/** What is wrong with a template's content, in words, or undefined (the dashboard's preview). */
export function checkTemplateContent(
  systemPrompt: string | null,
  userTemplate: string | null,
): string | undefined {
  try {
    checkContent("preview", systemPrompt, userTemplate);
    return undefined;
  } catch (error) {
    return error instanceof AppError ? error.message : String(error);
  }
}

const nameTaken = () =>
  new AppError("already_exists", "a prompt template with this name exists in this organization");

export async function createTemplate(
  ctx: RequestContext,
  input: CreateTemplateInput,
): Promise<PromptTemplateView> {
  const actor = actorOf(ctx);
  const name = input.name.trim();
  const systemPrompt = textOrNull(input.system_prompt);
  const userTemplate = textOrNull(input.user_template);
  checkContent(name, systemPrompt, userTemplate);
  try {
    return await mutate(ctx, "prompt_template.create", { type: "prompt_template" }, async (tx) => {
      const t = oneRow(
        await tx.insert(promptTemplates).values({ orgId: actor.orgId, name, latestVersion: 1 }).returning(),
      );
      const version = oneRow(
        await tx
          .insert(promptTemplateVersions)
          .values({ templateId: t.id, version: 1, name, systemPrompt, userTemplate, createdBy: actor.userId })
          .returning(),
      );
      return {
        result: viewOf(t, version),
        target: { type: "prompt_template", id: t.id },
      };
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw nameTaken();
    throw error;
  }
}

async function templateOfOrg(
  db: Executor,
  orgId: string,
  templateId: string,
  lock = false,
): Promise<PromptTemplateRow> {
  const id = uuidOr404(templateId, "prompt template");
  const query = db
    .select()
    .from(promptTemplates)
    .where(and(eq(promptTemplates.id, id), eq(promptTemplates.orgId, orgId)))
    .limit(1);
  const [row] = lock ? await query.for("update") : await query;
  if (!row) throw notFound("prompt template");
  return row;
}

async function versionOf(
  db: Executor,
  templateId: string,
  version: number,
): Promise<PromptTemplateVersionRow | undefined> {
  const [row] = await db
    .select()
    .from(promptTemplateVersions)
    .where(
      and(eq(promptTemplateVersions.templateId, templateId), eq(promptTemplateVersions.version, version)),
    )
    .limit(1);
  return row;
}

export async function updateTemplate(
  ctx: RequestContext,
  templateId: string,
  input: UpdateTemplateInput,
): Promise<PromptTemplateView> {
  const actor = actorOf(ctx);
  try {
    return await mutate(
      ctx,
      "prompt_template.update",
      { type: "prompt_template", id: templateId },
      async (tx) => {
        // The row lock orders concurrent updates, so each gets the next version number.
        const template = await templateOfOrg(tx, actor.orgId, templateId, true);
        const latest = await versionOf(tx, template.id, template.latestVersion);
        if (!latest) throw notFound("prompt template version");
        const name = input.name === undefined || input.name === null ? latest.name : input.name.trim();
        const systemPrompt = keepOr(input.system_prompt, latest.systemPrompt);
        const userTemplate = keepOr(input.user_template, latest.userTemplate);
        checkContent(name, systemPrompt, userTemplate);
        const next = template.latestVersion + 1;
        const updated = oneRow(
          await tx
            .update(promptTemplates)
            .set({ name, latestVersion: next, updatedAt: ctx.clock() })
            .where(eq(promptTemplates.id, template.id))
            .returning(),
        );
        const version = oneRow(
          await tx
            .insert(promptTemplateVersions)
            .values({
              templateId: template.id,
              version: next,
              name,
              systemPrompt,
              userTemplate,
              createdBy: actor.userId,
            })
            .returning(),
        );
        return {
          result: viewOf(updated, version),
          details: { version: next },
        };
      },
    );
  } catch (error) {
    if (isUniqueViolation(error)) throw nameTaken();
    throw error;
  }
}

/** Joins a template to its latest version. */
const isLatestVersion = and(
  eq(promptTemplateVersions.templateId, promptTemplates.id),
  eq(promptTemplateVersions.version, promptTemplates.latestVersion),
);

export async function listTemplates(ctx: RequestContext): Promise<{ templates: PromptTemplateView[] }> {
  const rows = await ctx.db
    .select({ template: promptTemplates, version: promptTemplateVersions })
    .from(promptTemplates)
    .innerJoin(promptTemplateVersions, isLatestVersion)
    .where(eq(promptTemplates.orgId, actorOf(ctx).orgId))
    .orderBy(asc(promptTemplates.name));
  return { templates: rows.map((r) => viewOf(r.template, r.version)) };
}

/** The latest version, or the one asked for. */
export async function getTemplate(
  ctx: RequestContext,
  templateId: string,
  version?: number,
): Promise<PromptTemplateView> {
  const template = await templateOfOrg(ctx.db, actorOf(ctx).orgId, templateId);
  const row = await versionOf(ctx.db, template.id, version ?? template.latestVersion);
  if (!row) throw notFound("prompt template version");
  return viewOf(template, row);
}

export async function listTemplateVersions(
  ctx: RequestContext,
  templateId: string,
): Promise<{ versions: PromptTemplateView[] }> {
  const template = await templateOfOrg(ctx.db, actorOf(ctx).orgId, templateId);
  const rows = await ctx.db
    .select()
    .from(promptTemplateVersions)
    .where(eq(promptTemplateVersions.templateId, template.id))
    .orderBy(desc(promptTemplateVersions.version));
  return { versions: rows.map((v) => viewOf(template, v)) };
}

/**
 * The latest content of a template, for prompt processing (no actor: the internal path). With
 * `orgId`, a template of another organization is not found.
 */
export async function latestTemplateContent(
  db: Executor,
  templateId: string,
  orgId: string | undefined,
): Promise<PromptTemplateVersionRow | undefined> {
  const rows = await db
    .select({ version: promptTemplateVersions })
    .from(promptTemplates)
    .innerJoin(promptTemplateVersions, isLatestVersion)
    .where(and(eq(promptTemplates.id, templateId), ...(orgId ? [eq(promptTemplates.orgId, orgId)] : [])))
    .limit(1);
  return rows[0]?.version;
}

/** Deletes a template with all its versions; refused (409) while a `prompt` policy applies it. */
export async function deleteTemplate(
  ctx: RequestContext,
  templateId: string,
): Promise<{ id: string; deleted: true }> {
  const orgId = actorOf(ctx).orgId;
  const id = uuidOr404(templateId, "prompt template");
  return mutate(ctx, "prompt_template.delete", { type: "prompt_template", id }, async (tx) => {
    const template = await templateOfOrg(tx, orgId, id);
    const latest = await versionOf(tx, template.id, template.latestVersion);
    await refuseIfReferenced(tx, orgId, `The template ${latest?.name ?? id}`, {
      policy: "prompt",
      templateId: id,
    });
    await tx.delete(promptTemplates).where(eq(promptTemplates.id, id));
    return { result: { id, deleted: true as const }, details: { name: latest?.name } };
  });
}
