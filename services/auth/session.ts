// Issuing a session (access + refresh token) for a user in one organization, and turning an access
// token back into the Actor every permission check reads.
import { and, eq, exists, isNotNull, isNull, notExists } from "drizzle-orm";
import { AppError } from "#core/errors.ts";
import type { Executor } from "#db/client.ts";
import { memberships, refreshTokens, roles, users } from "#db/schema/index.ts";
import type { Actor, AppContext } from "../context.ts";
import { isPermission, type Permission } from "../permissions.ts";
import { accessTokenSeconds, refreshTokenSeconds, signToken, verifyToken } from "./tokens.ts";

export interface SessionUser {
  id: string;
  email: string;
  role: string;
  org_id: string;
}

export interface Session {
  access_token: string;
  refresh_token: string;
  token_type: "bearer";
  expires_in: number;
  user: SessionUser;
}

interface Membership {
  role: string;
  permissions: string[];
}

export async function membershipOf(
  db: Executor,
  userId: string,
  orgId: string,
): Promise<Membership | undefined> {
  const [row] = await db
    .select({ role: roles.name, permissions: roles.permissions })
    .from(memberships)
    .innerJoin(roles, eq(roles.id, memberships.roleId))
    // A membership the identity provider deactivated (SCIM `active: false`) starts no session.
    .where(
      and(eq(memberships.userId, userId), eq(memberships.orgId, orgId), isNull(memberships.deactivatedAt)),
    )
    .limit(1);
  return row;
}

/** Issues tokens; `familyId` continues a refresh-token family (rotation), otherwise a new one starts. */
export async function issueSession(
  ctx: AppContext,
  db: Executor,
  user: { id: string; email: string },
  orgId: string,
  familyId: string = crypto.randomUUID(),
): Promise<Session> {
  const membership = await membershipOf(db, user.id, orgId);
  if (!membership) throw new AppError("forbidden", "not a member of that organization");
  const now = ctx.clock();
  const jti = crypto.randomUUID();
  await db.insert(refreshTokens).values({
    id: jti,
    familyId,
    userId: user.id,
    orgId,
    expiresAt: new Date(now.getTime() + refreshTokenSeconds * 1000),
  });
  const secret = ctx.config.jwtSecret;
  const [access, refresh] = await Promise.all([
    signToken(secret, { sub: user.id, org: orgId, typ: "access", sid: familyId }, accessTokenSeconds, now),
    signToken(
      secret,
      { sub: user.id, org: orgId, typ: "refresh", jti, fam: familyId },
      refreshTokenSeconds,
      now,
    ),
  ]);
  return {
    access_token: access,
    refresh_token: refresh,
    token_type: "bearer",
    expires_in: accessTokenSeconds,
    user: { id: user.id, email: user.email, role: membership.role, org_id: orgId },
  };
}

export const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The actor behind an access token. Permissions are read from the database on every call, so a
 * changed role or a removed membership takes effect at once, not when the token expires; in the same
 * query, a token whose session (its `sid`, the refresh-token family) was revoked is refused, so
 * sign-out, refresh-token reuse, a password change, a removal or a role change ends the access tokens
 * already handed out on the next request, on every gateway and the gRPC port (they all come here).
 */
export async function actorFromAccessToken(ctx: AppContext, token: string): Promise<Actor> {
  const claims = await verifyToken(ctx.config.jwtSecret, token, "access", ctx.clock());
  const sessionId = claims.sid;
  if (typeof sessionId !== "string" || !uuidPattern.test(sessionId)) {
    throw new AppError("unauthenticated", "invalid token");
  }
  const revoked = ctx.db
    .select({ id: refreshTokens.id })
    .from(refreshTokens)
    .where(and(eq(refreshTokens.familyId, sessionId), isNotNull(refreshTokens.revokedAt)));
  // The session must exist, and be this user's: a token signed with the real secret (a leaked one, or
  // one minted by whoever read it) naming a session that was never opened is refused.
  const opened = ctx.db
    .select({ id: refreshTokens.id })
    .from(refreshTokens)
    .where(and(eq(refreshTokens.familyId, sessionId), eq(refreshTokens.userId, claims.sub)));
  const [row] = await ctx.db
    .select({ email: users.email, role: roles.name, permissions: roles.permissions })
    .from(memberships)
    .innerJoin(roles, eq(roles.id, memberships.roleId))
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(
      and(
        eq(memberships.userId, claims.sub),
        eq(memberships.orgId, claims.org),
        isNull(memberships.deactivatedAt),
        exists(opened),
        notExists(revoked),
      ),
    )
    .limit(1);
  if (!row) throw new AppError("unauthenticated", "invalid token");
  return {
    userId: claims.sub,
    email: row.email,
    orgId: claims.org,
    role: row.role,
    permissions: new Set(row.permissions.filter(isPermission) as Permission[]),
    sessionId,
  };
}

/**
 * Whether the session an actor signed in with still stands: not revoked (sign-out, refresh-token reuse,
 * a password change, a removal or a new role) and its membership still there.
 */
export async function sessionStands(ctx: Pick<AppContext, "db">, actor: Actor): Promise<boolean> {
  if (!actor.sessionId) return true;
  const revoked = ctx.db
    .select({ id: refreshTokens.id })
    .from(refreshTokens)
    .where(and(eq(refreshTokens.familyId, actor.sessionId), isNotNull(refreshTokens.revokedAt)));
  const [row] = await ctx.db
    .select({ userId: memberships.userId })
    .from(memberships)
    .where(and(eq(memberships.userId, actor.userId), eq(memberships.orgId, actor.orgId), notExists(revoked)))
    .limit(1);
  return row !== undefined;
}

/** How often a long-lived stream (a log WebSocket) checks that its session still stands. */
export const SESSION_WATCH_MS = 1000;

/**
 * Calls `ended` once when the actor's session stops standing (checked every SESSION_WATCH_MS, so a
 * stream opened with it ends within about a second of a sign-out on any process); returns the stop.
 * A check that fails (the database away) is not an end: the next one decides.
 */
export function watchSession(
  ctx: Pick<AppContext, "db">,
  actor: Actor,
  ended: () => void,
  everyMs = SESSION_WATCH_MS,
): () => void {
  if (!actor.sessionId) return () => {};
  let checking = false;
  const timer = setInterval(async () => {
    if (checking) return;
    checking = true;
    try {
      if (!(await sessionStands(ctx, actor))) {
        clearInterval(timer);
        ended();
      }
    } catch {
      // The database is away: the stream stays until a check can tell.
    } finally {
      checking = false;
    }
  }, everyMs);
  return () => clearInterval(timer);
}
