// Roles of the active organization: the built-in ones (admin, developer, viewer; fixed, since
// CONTRACTS defines them and every start re-applies their permissions) and custom ones. Nobody grants
// what they do not hold: a role's permissions must be a subset of the caller's own.
import { and, asc, count, desc, eq } from "drizzle-orm";
import { AppError, type FieldProblem, notFound } from "#core/errors.ts";
import type { Executor } from "#db/client.ts";
import { memberships, type RoleRow, roles } from "#db/schema/index.ts";
import { isUniqueViolation } from "#db/unique-violation.ts";
import { type AuditDetails, mutate } from "../audit/mutate.ts";
import { type Actor, actorOf, type RequestContext } from "../context.ts";
import { isPermission, type Permission, permissionCatalog } from "../permissions.ts";

export const roleNamePattern = "^[a-z0-9][a-z0-9_-]{0,63}$";

export interface RoleView {
  name: string;
  description: string;
  permissions: Permission[];
  builtin: boolean;
  /** Members of the organization who hold this role. */
  user_count: number;
  created_at: string;
  updated_at: string;
}

export interface PermissionView {
  name: Permission;
  description: string;
}

export function listPermissions(): { permissions: PermissionView[] } {
  return {
    permissions: Object.entries(permissionCatalog).map(([name, description]) => ({
      name: name as Permission,
      description,
    })),
  };
}

const view = (row: RoleRow, userCount: number): RoleView => ({
  name: row.name,
  description: row.description,
  permissions: row.permissions.filter(isPermission),
  builtin: row.builtin,
  user_count: userCount,
  created_at: row.createdAt.toISOString(),
  updated_at: row.updatedAt.toISOString(),
});

async function usersOf(db: Executor, roleId: string): Promise<number> {
  const [row] = await db.select({ n: count() }).from(memberships).where(eq(memberships.roleId, roleId));
  return row?.n ?? 0;
}

export async function listRoles(ctx: RequestContext): Promise<{ roles: RoleView[] }> {
  const { orgId } = actorOf(ctx);
  const rows = await ctx.db
    .select({ role: roles, users: count(memberships.userId) })
    .from(roles)
    .leftJoin(memberships, eq(memberships.roleId, roles.id))
    .where(eq(roles.orgId, orgId))
    .groupBy(roles.id)
    // Built-in roles first, then custom ones by name.
    .orderBy(desc(roles.builtin), asc(roles.name));
  return { roles: rows.map((r) => view(r.role, r.users)) };
}

/** Checks a permission list: known, no duplicates, and held by the caller. */
function checkPermissions(actor: Actor, permissions: string[]): Permission[] {
  const problems: FieldProblem[] = [];
  permissions.forEach((p, i) => {
    if (!isPermission(p)) problems.push({ field: `permissions.${i}`, message: `unknown permission "${p}"` });
  });
  if (problems.length > 0) {
    throw new AppError(
      "validation_error",
      `invalid permissions: ${problems.map((p) => p.message).join("; ")}`,
      {
        fields: problems,
      },
    );
  }
  const unique = [...new Set(permissions as Permission[])];
  const beyond = unique.filter((p) => !actor.permissions.has(p));
  if (beyond.length > 0) {
    throw new AppError("forbidden", `you cannot grant permissions you do not hold: ${beyond.join(", ")}`);
  }
  return unique;
}

async function roleByName(tx: Executor, orgId: string, name: string): Promise<RoleRow> {
  const [row] = await tx
    .select()
    .from(roles)
    .where(and(eq(roles.orgId, orgId), eq(roles.name, name)))
    .for("update");
  if (!row) throw notFound("role");
  return row;
}

const builtinFixed = (name: string) =>
  new AppError(
    "failed_precondition",
    `"${name}" is a built-in role; it cannot be changed or deleted (create a custom role instead)`,
  );
const nameTaken = (name: string) => new AppError("already_exists", `a role named "${name}" already exists`);

export interface CreateRoleInput {
  name: string;
  description?: string | undefined;
  permissions: string[];
}

export async function createRole(ctx: RequestContext, input: CreateRoleInput): Promise<RoleView> {
  const actor = actorOf(ctx);
  const permissions = checkPermissions(actor, input.permissions);
  return mutate(ctx, "role.create", { type: "role", id: input.name }, async (tx) => {
    try {
      const [row] = await tx
        .insert(roles)
        .values({ orgId: actor.orgId, name: input.name, description: input.description ?? "", permissions })
        .returning();
      if (!row) throw new Error("the role row was not returned");
      return { result: view(row, 0), details: { permissions } };
    } catch (error) {
      throw isUniqueViolation(error) ? nameTaken(input.name) : error;
    }
  });
}

export interface UpdateRoleInput {
  /** A new name (custom roles only). */
  name?: string | undefined;
  description?: string | undefined;
  permissions?: string[] | undefined;
}

export async function updateRole(
  ctx: RequestContext,
  name: string,
  input: UpdateRoleInput,
): Promise<RoleView> {
  const actor = actorOf(ctx);
  const permissions =
    input.permissions === undefined ? undefined : checkPermissions(actor, input.permissions);
  return mutate(ctx, "role.update", { type: "role", id: name }, async (tx) => {
    const row = await roleByName(tx, actor.orgId, name);
    if (row.builtin) throw builtinFixed(name);
    const change = {
      ...(input.name !== undefined ? { name: input.name } : {}),
      ...(input.description !== undefined ? { description: input.description } : {}),
      ...(permissions !== undefined ? { permissions } : {}),
      updatedAt: ctx.clock(),
    };
    let updated: RoleRow | undefined;
    try {
      [updated] = await tx.update(roles).set(change).where(eq(roles.id, row.id)).returning();
    } catch (error) {
      throw isUniqueViolation(error) ? nameTaken(input.name ?? name) : error;
    }
    if (!updated) throw notFound("role");
    const details: AuditDetails = {};
    if (input.name !== undefined && input.name !== name) details.renamed_to = input.name;
    if (permissions !== undefined) details.permissions = permissions;
    return { result: view(updated, await usersOf(tx, row.id)), details };
  });
}

export async function deleteRole(
  ctx: RequestContext,
  name: string,
): Promise<{ name: string; deleted: true }> {
  const actor = actorOf(ctx);
  return mutate(ctx, "role.delete", { type: "role", id: name }, async (tx) => {
    const row = await roleByName(tx, actor.orgId, name);
    if (row.builtin) throw builtinFixed(name);
    const holders = await usersOf(tx, row.id);
    if (holders > 0) {
      throw new AppError(
        "failed_precondition",
        `role "${name}" is held by ${holders} user(s); give them another role first`,
      );
    }
    await tx.delete(roles).where(eq(roles.id, row.id));
    return { result: { name, deleted: true as const } };
  });
}
