// A user changes their own password with the current one. Every session of the user ends (in every
// organization: whoever knew the old password may hold one), and the caller gets a new session.
// Wrong current passwords count against the same sign-in throttle as wrong logins, so a stolen access
// token is no faster an oracle for the password than the login form.
import { eq } from "drizzle-orm";
import { AppError, invalid } from "#core/errors.ts";
import { users } from "#db/schema/index.ts";
import { mutate } from "../audit/mutate.ts";
import { actorOf, type RequestContext } from "../context.ts";
import { hashPassword, passwordProblem, verifyPassword } from "../crypto/passwords.ts";
import { reserveAttempt } from "./login-throttle.ts";
import { revokeUserSessions } from "./revoke.ts";
import { issueSession, type Session } from "./session.ts";

export interface ChangePasswordInput {
  current_password: string;
  new_password: string;
}

export async function changePassword(ctx: RequestContext, input: ChangePasswordInput): Promise<Session> {
  const actor = actorOf(ctx);
  const problem = passwordProblem(input.new_password, ctx.config.passwordMinLength);
  if (problem) throw invalid("new_password", problem);
  const [user] = await ctx.db.select().from(users).where(eq(users.id, actor.userId)).limit(1);
  if (!user) throw new AppError("unauthenticated", "invalid token");
  const throttle = await reserveAttempt(ctx.db, { email: user.email, address: ctx.ip }, ctx.clock());
  if (!throttle.allowed) throw throttle.error;
  if (!(await verifyPassword(input.current_password, user.passwordHash))) {
    throw invalid("current_password", "is not your current password");
  }
  const passwordHash = await hashPassword(input.new_password, ctx.config.passwordHash);
  return mutate(ctx, "user.password.change", { type: "user", id: user.id }, async (tx) => {
    const now = ctx.clock();
    await tx.update(users).set({ passwordHash }).where(eq(users.id, user.id));
    await revokeUserSessions(tx, user.id, now);
    return { result: await issueSession(ctx, tx, user, actor.orgId) };
  });
}
