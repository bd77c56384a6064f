// Sign-in. Whatever goes wrong before the password is known to be right (unknown e-mail, wrong
// password, an e-mail locked by too many attempts) is answered with the same 401, after the same slow
// hash, so neither the answer nor its timing tells which e-mails exist or which are locked. Every
// attempt is audited (`auth.login`), with the e-mail as the actor label.
import { asc, eq } from "drizzle-orm";
import { memberships, users } from "../../db/schema/index.ts";
import { writeAudit } from "../audit/mutate.ts";
import type { RequestContext } from "../context.ts";
import { AppError } from "../errors.ts";
import { clearAttempts, reserveAttempt } from "./login-throttle.ts";
import { burnPasswordCheck, verifyPassword } from "./passwords.ts";
import { issueSession, type Session } from "./session.ts";
import { consumeTotpCode } from "./totp.ts";

export interface LoginInput {
  email: string;
  password: string;
  totp_code?: string | undefined;
}

/** One message for an unknown e-mail, a wrong password and a lock, so none reveals which it was. */
const badCredentials = () => new AppError("unauthenticated", "invalid email or password");

/** Why an attempt failed, for the audit record only (never in the answer). */
type FailureReason =
  | "locked"
  | "unknown_email"
  | "wrong_password"
  | "no_organization"
  | "totp_missing"
  | "totp_invalid";

export const normaliseEmail = (email: string) => email.trim().toLowerCase();

export async function login(ctx: RequestContext, input: LoginInput): Promise<Session> {
  const email = normaliseEmail(input.email);
  const now = ctx.clock();
  const [user] = await ctx.db.select().from(users).where(eq(users.email, email)).limit(1);
  // The first organization joined is the one a session starts in; /auth/switch-org changes it.
  const [first] = user
    ? await ctx.db
        .select({ orgId: memberships.orgId })
        .from(memberships)
        .where(eq(memberships.userId, user.id))
        .orderBy(asc(memberships.createdAt))
        .limit(1)
    : [];
  const who = { actorLabel: email, actorId: user?.id, orgId: first?.orgId };
  const fail = async (reason: FailureReason, error: AppError = badCredentials()): Promise<never> => {
    await writeAudit(ctx.db, ctx, { action: "auth.login", outcome: "failure", details: { reason }, ...who });
    throw error;
  };

  if (!(await reserveAttempt(ctx.db, email, now))) {
    await burnPasswordCheck(input.password);
    return fail("locked");
  }
  if (!user) {
    await burnPasswordCheck(input.password);
    return fail("unknown_email");
  }
  if (!(await verifyPassword(input.password, user.passwordHash))) return fail("wrong_password");
  if (!first) return fail("no_organization");
  if (user.totpEnabled) {
    if (!input.totp_code)
      return fail("totp_missing", new AppError("totp_required", "a TOTP code is required"));
    if (!(await consumeTotpCode(ctx, ctx.db, user, input.totp_code))) {
      return fail(
        "totp_invalid",
        new AppError("totp_required", "the TOTP code is wrong, expired or already used"),
      );
    }
  }
  await clearAttempts(ctx.db, email, now);
  return ctx.db.transaction(async (tx) => {
    const session = await issueSession(ctx, tx, user, first.orgId);
    await writeAudit(tx, ctx, { action: "auth.login", outcome: "success", ...who });
    return session;
  });
}
