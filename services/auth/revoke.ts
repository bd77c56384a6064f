// Ending sessions. A session is a refresh-token family (one sign-in and its rotations); revoking it
// marks every token of the family revoked, which both refuses its refresh token and, through the
// access token's `sid`, its access tokens (session.ts actorFromAccessToken checks on every request).
import { and, eq, isNull } from "drizzle-orm";
import type { Executor } from "#db/client.ts";
import { refreshTokens } from "#db/schema/index.ts";

/** One session: sign-out, or a refresh token presented twice. */
export async function revokeSession(db: Executor, sessionId: string, now: Date): Promise<void> {
  await db
    .update(refreshTokens)
    .set({ revokedAt: now })
    .where(and(eq(refreshTokens.familyId, sessionId), isNull(refreshTokens.revokedAt)));
}

/**
 * Every session of a user, or only those in one organization: a password change ends them all; a
 * removal from an organization or a new role there ends the sessions working in it.
 */
export async function revokeUserSessions(
  db: Executor,
  userId: string,
  now: Date,
  orgId?: string,
): Promise<void> {
  await db
    .update(refreshTokens)
    .set({ revokedAt: now })
    .where(
      and(
        eq(refreshTokens.userId, userId),
        isNull(refreshTokens.revokedAt),
        orgId ? eq(refreshTokens.orgId, orgId) : undefined,
      ),
    );
}
