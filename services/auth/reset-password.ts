// `bun run admin:reset-password EMAIL`: the way back for an operator who lost a password (the first
// administrator's generated one is printed only once). Sets a new password, revokes every refresh token
// of the user (their sign-ins end), and records it in the audit log of each of their organizations.
import { and, eq, isNull } from "drizzle-orm";
import { AppError, notFound } from "#core/errors.ts";
import { memberships, refreshTokens, users } from "#db/schema/index.ts";
import { writeAudit } from "../audit/mutate.ts";
import type { AppContext } from "../context.ts";
import { generatePassword, hashPassword, passwordProblem } from "../crypto/passwords.ts";

export interface PasswordReset {
  email: string;
  /** The new password when it was generated; undefined when the operator gave it. */
  generatedPassword: string | undefined;
  sessionsRevoked: number;
}

export async function resetPassword(ctx: AppContext, email: string, given?: string): Promise<PasswordReset> {
  const address = email.trim().toLowerCase();
  const problem = given === undefined ? undefined : passwordProblem(given, ctx.config.passwordMinLength);
  if (problem) throw new AppError("validation_error", `ADMIN_PASSWORD ${problem}`);
  const password = given ?? generatePassword();
  const passwordHash = await hashPassword(password, ctx.config.passwordHash);
  return ctx.db.transaction(async (tx) => {
    const [user] = await tx.select({ id: users.id }).from(users).where(eq(users.email, address)).limit(1);
    if (!user) throw notFound(`user ${address}`);
    const now = ctx.clock();
    await tx.update(users).set({ passwordHash, updatedAt: now }).where(eq(users.id, user.id));
    const revoked = await tx
      .update(refreshTokens)
      .set({ revokedAt: now })
      .where(and(eq(refreshTokens.userId, user.id), isNull(refreshTokens.revokedAt)))
      .returning({ id: refreshTokens.id });
    const orgs = await tx
      .select({ orgId: memberships.orgId })
      .from(memberships)
      .where(eq(memberships.userId, user.id));
    for (const { orgId } of orgs) {
      await writeAudit(
        tx,
        {
          actor: undefined,
          ip: undefined,
          userAgent: "admin:reset-password",
          requestId: `cli_${crypto.randomUUID()}`,
        },
        {
          action: "user.password_reset",
          target: { type: "user", id: user.id },
          outcome: "success",
          orgId,
          actorLabel: "operator (bun run admin:reset-password)",
          details: { email: address, generated: given === undefined, sessions_revoked: revoked.length },
        },
      );
    }
    return {
      email: address,
      generatedPassword: given === undefined ? password : undefined,
      sessionsRevoked: revoked.length,
    };
  });
}
