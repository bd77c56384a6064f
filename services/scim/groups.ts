// SCIM Groups (RFC 7643 §4.2) are the organization's roles: a Group's members hold that role. Adding a
// member gives them the role; removing one gives them the organization's default role back. Creating
// a Group creates a custom role without permissions (an administrator then decides what it may do),
// so an identity provider can push its groups and memberships and an administrator grants rights.
import { and, asc, eq, inArray } from "drizzle-orm";
import { AppError } from "#core/errors.ts";
import type { Executor } from "#db/client.ts";
import { memberships, type RoleRow, roles, ssoConfigs, users } from "#db/schema/index.ts";
import { mutate } from "../audit/mutate.ts";
import { uuidPattern } from "../auth/session.ts";
import { actorOf, type RequestContext } from "../context.ts";
import { roleNamePattern } from "../rbac/roles.ts";
import { compileFilter, page } from "./filter.ts";
import {
  groupSchema,
  type ListQueryT,
  type ListResponse,
  listSchema,
  type ScimGroupInputT,
  type ScimGroupT,
  type ScimPatchT,
} from "./protocol.ts";
import { refuseBreakGlass, scimNotFound } from "./users.ts";

async function membersOf(db: Executor, orgId: string, roleIds: string[]) {
  if (roleIds.length === 0) return new Map<string, { value: string; display: string }[]>();
  const rows = await db
    .select({ roleId: memberships.roleId, id: users.id, email: users.email })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(and(eq(memberships.orgId, orgId), inArray(memberships.roleId, roleIds)))
    .orderBy(asc(users.email));
  const byRole = new Map<string, { value: string; display: string }[]>();
  for (const r of rows)
    byRole.set(r.roleId, [...(byRole.get(r.roleId) ?? []), { value: r.id, display: r.email }]);
  return byRole;
}

function toScimGroup(
  role: RoleRow,
  members: { value: string; display: string }[],
  baseUrl: string,
): ScimGroupT {
  return {
    schemas: [groupSchema],
    id: role.id,
    displayName: role.name,
    members: members.map((m) => ({ ...m, $ref: `${baseUrl}/Users/${m.value}` })),
    meta: {
      resourceType: "Group",
      created: role.createdAt.toISOString(),
      lastModified: role.updatedAt.toISOString(),
      location: `${baseUrl}/Groups/${role.id}`,
    },
  };
}

async function roleRow(db: Executor, orgId: string, id: string): Promise<RoleRow> {
  if (!uuidPattern.test(id)) throw scimNotFound("Group");
  const [role] = await db
    .select()
    .from(roles)
    .where(and(eq(roles.orgId, orgId), eq(roles.id, id)))
    .limit(1);
  if (!role) throw scimNotFound("Group");
  return role;
}

async function groupOf(db: Executor, orgId: string, id: string, baseUrl: string): Promise<ScimGroupT> {
  const role = await roleRow(db, orgId, id);
  return toScimGroup(role, (await membersOf(db, orgId, [role.id])).get(role.id) ?? [], baseUrl);
}

export function getScimGroup(ctx: RequestContext, id: string, baseUrl: string): Promise<ScimGroupT> {
  return groupOf(ctx.db, actorOf(ctx).orgId, id, baseUrl);
}

export async function listScimGroups(
  ctx: RequestContext,
  query: ListQueryT,
  baseUrl: string,
): Promise<ListResponse<ScimGroupT>> {
  const { orgId } = actorOf(ctx);
  const test = compileFilter<ScimGroupT>(query.filter);
  const rows = await ctx.db.select().from(roles).where(eq(roles.orgId, orgId)).orderBy(asc(roles.name));
  const members = await membersOf(
    ctx.db,
    orgId,
    rows.map((r) => r.id),
  );
  const groups = rows.map((r) => toScimGroup(r, members.get(r.id) ?? [], baseUrl)).filter(test);
  return { schemas: [listSchema], ...page(groups, query.startIndex, query.count) };
}

async function setRole(tx: Executor, orgId: string, userIds: string[], roleId: string): Promise<void> {
  const ids = userIds.filter((id) => uuidPattern.test(id));
  // A break-glass administrator stays an administrator, whatever the provider's groups say.
  const [target] = await tx.select({ name: roles.name }).from(roles).where(eq(roles.id, roleId));
  if (ids.length > 0 && target?.name !== "admin") {
    const emails = await tx.select({ email: users.email }).from(users).where(inArray(users.id, ids));
    await refuseBreakGlass(
      tx,
      orgId,
      emails.map((e) => e.email),
      "change their role",
    );
  }
  if (ids.length !== userIds.length)
    throw new AppError("validation_error", "a member is not a User id", { scimType: "invalidValue" });
  if (ids.length === 0) return;
  const updated = await tx
    .update(memberships)
    .set({ roleId })
    .where(and(eq(memberships.orgId, orgId), inArray(memberships.userId, ids)))
    .returning({ userId: memberships.userId });
  if (updated.length !== ids.length)
    throw new AppError("validation_error", "a member is not a User of this organization", {
      scimType: "invalidValue",
    });
}

async function defaultRole(tx: Executor, orgId: string): Promise<string> {
  const [sso] = await tx
    .select({ role: ssoConfigs.defaultRole })
    .from(ssoConfigs)
    .where(eq(ssoConfigs.orgId, orgId));
  const [role] = await tx
    .select({ id: roles.id })
    .from(roles)
    .where(and(eq(roles.orgId, orgId), eq(roles.name, sso?.role ?? "viewer")));
  if (!role) throw new AppError("failed_precondition", "the organization has no default role");
  return role.id;
}

export async function createScimGroup(
  ctx: RequestContext,
  input: ScimGroupInputT,
  baseUrl: string,
): Promise<ScimGroupT> {
  const { orgId } = actorOf(ctx);
  const name = roleNameOf(input.displayName);
  if (!new RegExp(roleNamePattern).test(name))
    throw new AppError("validation_error", "displayName must name a role (letters, digits, _ and -)", {
      scimType: "invalidValue",
    });
  return mutate(ctx, "scim.group.create", { type: "role" }, async (tx) => {
    const [taken] = await tx
      .select({ id: roles.id })
      .from(roles)
      .where(and(eq(roles.orgId, orgId), eq(roles.name, name)));
    if (taken)
      throw new AppError("already_exists", `a group named ${name} exists`, { scimType: "uniqueness" });
    const [role] = await tx
      .insert(roles)
      .values({ orgId, name, description: "Provisioned by SCIM", permissions: [] })
      .returning();
    if (!role) throw new Error("the role was not created");
    await setRole(
      tx,
      orgId,
      (input.members ?? []).map((m) => m.value),
      role.id,
    );
    return { result: await groupOf(tx, orgId, role.id, baseUrl), target: { type: "role", id: role.id } };
  });
}

/** The displayName an add/replace sets: by its path, or in a value object without a path. */
function renamesTo(path: string, value: unknown): string | undefined {
  if (path.toLowerCase() === "displayname") return typeof value === "string" ? value : "";
  if (path === "" && typeof value === "object" && value !== null && "displayName" in value)
    return typeof value.displayName === "string" ? value.displayName : "";
  return undefined;
}

/** A group's displayName as a role name: lower-case, runs of other characters as "-". */
const roleNameOf = (displayName: string) =>
  displayName
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, "-");

/** `members[value eq "id"]`: the member a remove names (RFC 7644 §3.5.2.2). */
function memberOfPath(path: string): string | undefined {
  return /^members\[\s*value\s+eq\s+"([^"]+)"\s*\]$/i.exec(path.trim())?.[1];
}

function memberValues(value: unknown): string[] {
  if (!Array.isArray(value))
    throw new AppError("validation_error", "members must be a list", { scimType: "invalidValue" });
  return value.map((m) => {
    if (typeof m === "object" && m !== null && "value" in m && typeof m.value === "string") return m.value;
    throw new AppError("validation_error", "each member needs a value", { scimType: "invalidValue" });
  });
}

export async function patchScimGroup(
  ctx: RequestContext,
  id: string,
  patch: ScimPatchT,
  baseUrl: string,
): Promise<ScimGroupT> {
  const { orgId } = actorOf(ctx);
  const role = await roleRow(ctx.db, orgId, id);
  return mutate(ctx, "scim.group.update", { type: "role", id: role.id }, async (tx) => {
    const fallback = await defaultRole(tx, orgId);
    for (const operation of patch.Operations) {
      const op = operation.op.toLowerCase();
      const path = operation.path ?? "";
      if ((op === "add" || op === "replace") && path.toLowerCase() === "members") {
        if (op === "replace") {
          const current = (await membersOf(tx, orgId, [role.id])).get(role.id) ?? [];
          await setRole(
            tx,
            orgId,
            current.map((m) => m.value),
            fallback,
          );
        }
        await setRole(tx, orgId, memberValues(operation.value), role.id);
      } else if (op === "remove" && path.toLowerCase() === "members") {
        const ids =
          operation.value === undefined
            ? ((await membersOf(tx, orgId, [role.id])).get(role.id) ?? []).map((m) => m.value)
            : memberValues(operation.value);
        await setRole(tx, orgId, ids, fallback);
      } else if (op === "remove" && memberOfPath(path) !== undefined) {
        await setRole(tx, orgId, [memberOfPath(path) ?? ""], fallback);
      } else if (op !== "remove" && renamesTo(path, operation.value) !== undefined) {
        // Entra ID sends the group's name with its changes: the same name is nothing to do; a role is
        // renamed on the platform, not by the provider.
        if (roleNameOf(renamesTo(path, operation.value) ?? "") !== role.name)
          throw new AppError("validation_error", "a group (role) is renamed on the platform, not over SCIM", {
            scimType: "mutability",
          });
      } else {
        throw new AppError(
          "validation_error",
          `unsupported Group PATCH: ${operation.op} ${path || "(no path)"}`,
          {
            scimType: "invalidPath",
          },
        );
      }
    }
    return { result: await groupOf(tx, orgId, role.id, baseUrl) };
  });
}

export async function deleteScimGroup(ctx: RequestContext, id: string): Promise<void> {
  const { orgId } = actorOf(ctx);
  const role = await roleRow(ctx.db, orgId, id);
  if (role.builtin)
    throw new AppError("failed_precondition", "a built-in role cannot be deleted", {
      scimType: "mutability",
    });
  await mutate(ctx, "scim.group.delete", { type: "role", id: role.id }, async (tx) => {
    const fallback = await defaultRole(tx, orgId);
    await tx
      .update(memberships)
      .set({ roleId: fallback })
      .where(and(eq(memberships.orgId, orgId), eq(memberships.roleId, role.id)));
    await tx.delete(roles).where(eq(roles.id, role.id));
    return { result: undefined, details: { name: role.name } };
  });
}
