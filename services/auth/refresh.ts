import { and, eq, isNull } from "drizzle-orm";
import { AppError } from "#core/errors.ts";
import { refreshTokens, users } from "#db/schema/index.ts";
import type { AppContext } from "../context.ts";
import { revokeSession } from "./revoke.ts";
import { issueSession, membershipOf, type Session } from "./session.ts";
import { verifyToken } from "./tokens.ts";

/**
 * Rotation: a refresh token is exchanged once. Presenting one already used means it leaked (or a client
 * raced itself): the whole family is revoked so the thief's copy dies with the owner's.
 */
export async function refresh(ctx: AppContext, token: string): Promise<Session> {
  const now = ctx.clock();
  const claims = await verifyToken(ctx.config.jwtSecret, token, "refresh", now);
  if (!claims.jti || !claims.fam) throw new AppError("unauthenticated", "invalid token");
  const outcome = await ctx.db.transaction(async (tx) => {
    // Conditional update: of two concurrent exchanges exactly one wins.
    const [claimed] = await tx
      .update(refreshTokens)
      .set({ usedAt: now })
      .where(
        and(
          eq(refreshTokens.id, claims.jti as string),
          isNull(refreshTokens.usedAt),
          isNull(refreshTokens.revokedAt),
        ),
      )
      .returning();
    if (!claimed) {
      await revokeSession(tx, claims.fam as string, now);
      return { reused: true as const };
    }
    const [user] = await tx.select().from(users).where(eq(users.id, claimed.userId)).limit(1);
    // A user who left the organization since must sign in again (into one they still belong to).
    const member = user && (await membershipOf(tx, user.id, claimed.orgId));
    if (!user || !member || claimed.expiresAt <= now) return { reused: false as const, session: undefined };
    return {
      reused: false as const,
      session: await issueSession(ctx, tx, user, claimed.orgId, claimed.familyId),
    };
  });
  if (outcome.reused) {
    ctx.log.warn("refresh token reuse: family revoked", { family_id: claims.fam, user_id: claims.sub });
    throw new AppError("unauthenticated", "refresh token already used; sign in again");
  }
  if (!outcome.session) throw new AppError("unauthenticated", "invalid token");
  return outcome.session;
}
