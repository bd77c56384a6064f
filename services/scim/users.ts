// SCIM Users (RFC 7643 §4.1, RFC 7644 §3): a User is a member of the organization the SCIM token
// belongs to. Its `id` is the platform's user id, `userName` the e-mail, `active: false` deactivates
// the membership: its sessions end and the API keys the user created are revoked, so every gateway
// and the gRPC port refuse them from the next request (keys: within the inference cache's second).
// Deleting a User removes the membership; the account stays for its other organizations.
import { and, asc, eq, isNull } from "drizzle-orm";
import { AppError } from "#core/errors.ts";
import type { Executor } from "#db/client.ts";
import { apiKeys, memberships, roles, ssoConfigs, users } from "#db/schema/index.ts";
import { mutate } from "../audit/mutate.ts";
import { revokeUserSessions } from "../auth/revoke.ts";
import { uuidPattern } from "../auth/session.ts";
import { actorOf, type RequestContext } from "../context.ts";
import { selectMemberships } from "../orgs/members.ts";
import { compileFilter, page } from "./filter.ts";
import {
  type ListQueryT,
  type ListResponse,
  listSchema,
  type PatchOperationT,
  type ScimPatchT,
  type ScimUserInputT,
  type ScimUserT,
  userSchema,
} from "./protocol.ts";

/** Accounts created by provisioning have no password: they sign in through the identity provider. */
const noPassword = "!scim";

const emailPattern = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export const scimNotFound = (what: string) => new AppError("not_found", `${what} not found`);

const conflict = (message: string) => new AppError("already_exists", message, { scimType: "uniqueness" });
const invalidValue = (message: string) =>
  new AppError("validation_error", message, { scimType: "invalidValue" });

type MemberRow = Awaited<ReturnType<typeof selectMembers>>[number];

function selectMembers(db: Executor, orgId: string) {
  return selectMemberships(db).where(eq(memberships.orgId, orgId));
}

export function toScimUser(row: MemberRow, baseUrl: string): ScimUserT {
  return {
    schemas: [userSchema],
    id: row.userId,
    ...(row.externalId ? { externalId: row.externalId } : {}),
    userName: row.email,
    ...(row.displayName ? { displayName: row.displayName } : {}),
    emails: [{ value: row.email, type: "work", primary: true }],
    active: row.deactivatedAt === null,
    groups: [{ value: row.roleId, display: row.role, $ref: `${baseUrl}/Groups/${row.roleId}` }],
    meta: {
      resourceType: "User",
      created: row.joinedAt.toISOString(),
      lastModified: (row.deactivatedAt ?? row.userUpdatedAt).toISOString(),
      location: `${baseUrl}/Users/${row.userId}`,
    },
  };
}

async function memberRow(db: Executor, orgId: string, userId: string): Promise<MemberRow> {
  if (!uuidPattern.test(userId)) throw scimNotFound("User");
  const [row] = await selectMembers(db, orgId).where(
    and(eq(memberships.orgId, orgId), eq(memberships.userId, userId)),
  );
  if (!row) throw scimNotFound("User");
  return row;
}

export async function getScimUser(ctx: RequestContext, id: string, baseUrl: string): Promise<ScimUserT> {
  return toScimUser(await memberRow(ctx.db, actorOf(ctx).orgId, id), baseUrl);
}

export async function listScimUsers(
  ctx: RequestContext,
  query: ListQueryT,
  baseUrl: string,
): Promise<ListResponse<ScimUserT>> {
  const test = compileFilter<ScimUserT>(query.filter);
  const rows = await selectMembers(ctx.db, actorOf(ctx).orgId).orderBy(asc(memberships.createdAt));
  const matching = rows.map((r) => toScimUser(r, baseUrl)).filter(test);
  return { schemas: [listSchema], ...page(matching, query.startIndex, query.count) };
}

/** The role a provisioned member starts with: the SSO configuration's default, else `viewer`. */
async function defaultRoleId(tx: Executor, orgId: string): Promise<string> {
  const [sso] = await tx
    .select({ role: ssoConfigs.defaultRole })
    .from(ssoConfigs)
    .where(eq(ssoConfigs.orgId, orgId))
    .limit(1);
  const [role] = await tx
    .select({ id: roles.id })
    .from(roles)
    .where(and(eq(roles.orgId, orgId), eq(roles.name, sso?.role ?? "viewer")))
    .limit(1);
  if (!role) throw new AppError("failed_precondition", "the organization has no default role");
  return role.id;
}

const userNameOf = (input: { userName: string }) => {
  const email = input.userName.trim().toLowerCase();
  if (!emailPattern.test(email)) throw invalidValue("userName must be an e-mail address");
  return email;
};

/**
 * The break-glass administrators (services/auth/password-policy.ts) are the organization's way in when
 * its identity provider fails: the provider cannot deactivate, remove or demote them.
 */
export async function refuseBreakGlass(tx: Executor, orgId: string, emails: string[], what: string) {
  const [sso] = await tx
    .select({ breakGlass: ssoConfigs.breakGlassEmails })
    .from(ssoConfigs)
    .where(eq(ssoConfigs.orgId, orgId))
    .limit(1);
  const protectedOne = emails.find((e) => sso?.breakGlass.includes(e));
  if (protectedOne)
    throw new AppError(
      "failed_precondition",
      `${protectedOne} is a break-glass administrator: SCIM cannot ${what}`,
      {
        scimType: "mutability",
      },
    );
}

/** Ends what a deactivated (or removed) member was signed in with, in this organization. */
async function cutOff(tx: Executor, orgId: string, userId: string, now: Date): Promise<void> {
  await revokeUserSessions(tx, userId, now, orgId);
  await tx
    .update(apiKeys)
    .set({ revokedAt: now })
    .where(and(eq(apiKeys.orgId, orgId), eq(apiKeys.createdBy, userId), isNull(apiKeys.revokedAt)));
}

export async function createScimUser(
  ctx: RequestContext,
  input: ScimUserInputT,
  baseUrl: string,
): Promise<ScimUserT> {
  const { orgId } = actorOf(ctx);
  const email = userNameOf(input);
  return mutate(ctx, "scim.user.create", { type: "user" }, async (tx) => {
    let [user] = await tx.select({ id: users.id }).from(users).where(eq(users.email, email)).limit(1);
    if (user) {
      const [member] = await tx
        .select({ userId: memberships.userId })
        .from(memberships)
        .where(and(eq(memberships.orgId, orgId), eq(memberships.userId, user.id)));
      if (member) throw conflict(`${email} is already provisioned`);
    } else {
      [user] = await tx.insert(users).values({ email, passwordHash: noPassword }).returning({ id: users.id });
    }
    if (!user) throw new Error("the user was not created");
    const now = ctx.clock();
    await tx.insert(memberships).values({
      userId: user.id,
      orgId,
      roleId: await defaultRoleId(tx, orgId),
      externalId: input.externalId ?? null,
      displayName: input.displayName ?? null,
      deactivatedAt: input.active === false ? now : null,
    });
    return {
      result: toScimUser(await memberRow(tx, orgId, user.id), baseUrl),
      target: { type: "user", id: user.id },
      details: { userName: email, active: input.active !== false },
    };
  });
}

interface UserChanges {
  userName?: string;
  externalId?: string | null;
  displayName?: string | null;
  active?: boolean;
}

/** Applies changes to a member; deactivation is audited as its own action. */
async function applyChanges(
  ctx: RequestContext,
  id: string,
  baseUrl: string,
  changes: (current: ScimUserT) => UserChanges,
): Promise<ScimUserT> {
  const { orgId } = actorOf(ctx);
  const current = await memberRow(ctx.db, orgId, id);
  const wanted = changes(toScimUser(current, baseUrl));
  const deactivating = wanted.active === false && current.deactivatedAt === null;
  const action = deactivating
    ? "scim.user.deactivate"
    : wanted.active === true && current.deactivatedAt
      ? "scim.user.reactivate"
      : "scim.user.update";
  return mutate(ctx, action, { type: "user", id: current.userId }, async (tx) => {
    if (deactivating) await refuseBreakGlass(tx, orgId, [current.email], "deactivate them");
    const now = ctx.clock();
    if (wanted.userName !== undefined) {
      const email = userNameOf({ userName: wanted.userName });
      if (email !== current.email) {
        const [taken] = await tx.select({ id: users.id }).from(users).where(eq(users.email, email)).limit(1);
        if (taken) throw conflict(`${email} belongs to another account`);
        await tx.update(users).set({ email, updatedAt: now }).where(eq(users.id, current.userId));
      }
    }
    const set: Partial<typeof memberships.$inferInsert> = {};
    if (wanted.externalId !== undefined) set.externalId = wanted.externalId;
    if (wanted.displayName !== undefined) set.displayName = wanted.displayName;
    if (wanted.active !== undefined)
      set.deactivatedAt = wanted.active ? null : (current.deactivatedAt ?? now);
    if (Object.keys(set).length > 0)
      await tx
        .update(memberships)
        .set(set)
        .where(and(eq(memberships.orgId, orgId), eq(memberships.userId, current.userId)));
    if (deactivating) await cutOff(tx, orgId, current.userId, now);
    return {
      result: toScimUser(await memberRow(tx, orgId, current.userId), baseUrl),
      details: { userName: wanted.userName ?? current.email },
    };
  });
}

export function replaceScimUser(ctx: RequestContext, id: string, input: ScimUserInputT, baseUrl: string) {
  return applyChanges(ctx, id, baseUrl, () => ({
    userName: input.userName,
    externalId: input.externalId ?? null,
    displayName: input.displayName ?? null,
    active: input.active ?? true,
  }));
}

/** "False", "false" and false alike: Entra ID sends booleans as strings. */
function booleanOf(value: unknown, path: string): boolean {
  if (typeof value === "boolean") return value;
  if (typeof value === "string" && /^(true|false)$/i.test(value)) return value.toLowerCase() === "true";
  throw invalidValue(`${path} must be a boolean`);
}

function stringOrNull(value: unknown, path: string): string | null {
  if (value === null || typeof value === "string") return value;
  throw invalidValue(`${path} must be a string`);
}

/** One attribute of a PATCH, by its path (case-insensitive, as RFC 7643 attribute names are). */
function patchAttribute(changes: UserChanges, path: string, value: unknown, remove: boolean): void {
  switch (path.toLowerCase()) {
    case "active":
      changes.active = remove ? false : booleanOf(value, path);
      return;
    case "username":
      if (remove) throw new AppError("validation_error", "userName is required", { scimType: "mutability" });
      changes.userName = stringOrNull(value, path) ?? "";
      return;
    case "externalid":
      changes.externalId = remove ? null : stringOrNull(value, path);
      return;
    case "displayname":
      changes.displayName = remove ? null : stringOrNull(value, path);
      return;
    default:
      // Attributes the platform does not keep (name, title, phone numbers...) are accepted and ignored,
      // so an identity provider that sends its whole profile is not refused for it.
      return;
  }
}

function patchChanges(patch: ScimPatchT): UserChanges {
  const changes: UserChanges = {};
  for (const operation of patch.Operations) applyOperation(changes, operation);
  return changes;
}

function applyOperation(changes: UserChanges, operation: PatchOperationT): void {
  const op = operation.op.toLowerCase();
  if (op !== "add" && op !== "replace" && op !== "remove")
    throw new AppError("validation_error", `unknown PATCH op ${operation.op}`, { scimType: "invalidSyntax" });
  if (operation.path) {
    patchAttribute(changes, operation.path, operation.value, op === "remove");
    return;
  }
  // Without a path the value is an object of attributes (RFC 7644 §3.5.2.1, §3.5.2.3).
  const value = operation.value;
  if (op === "remove" || typeof value !== "object" || value === null || Array.isArray(value))
    throw new AppError("validation_error", "a PATCH without a path needs an object value", {
      scimType: "noTarget",
    });
  for (const [path, v] of Object.entries(value)) patchAttribute(changes, path, v, false);
}

export function patchScimUser(ctx: RequestContext, id: string, patch: ScimPatchT, baseUrl: string) {
  const changes = patchChanges(patch);
  return applyChanges(ctx, id, baseUrl, () => changes);
}

export async function deleteScimUser(ctx: RequestContext, id: string): Promise<void> {
  const { orgId } = actorOf(ctx);
  const current = await memberRow(ctx.db, orgId, id);
  await mutate(ctx, "scim.user.delete", { type: "user", id: current.userId }, async (tx) => {
    await refuseBreakGlass(tx, orgId, [current.email], "remove them");
    const now = ctx.clock();
    await cutOff(tx, orgId, current.userId, now);
    await tx
      .delete(memberships)
      .where(and(eq(memberships.orgId, orgId), eq(memberships.userId, current.userId)));
    return { result: undefined, details: { userName: current.email } };
  });
}
