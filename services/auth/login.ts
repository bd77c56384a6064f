// Sign-in. An unknown e-mail and a wrong password get the same 401 after the same slow hash, so neither
// the answer nor its timing tells which e-mails exist. Too many attempts (per e-mail, known or not, and
// per client address) get 429 with Retry-After before any hash is computed (login-throttle.ts). Every
// attempt is audited (`auth.login`), with the e-mail as the actor label.
import { and, asc, eq, isNull } from "drizzle-orm";
import { AppError } from "#core/errors.ts";
import { memberships, users } from "#db/schema/index.ts";
import { writeAudit } from "../audit/mutate.ts";
import type { RequestContext } from "../context.ts";
import { burnPasswordCheck, verifyPassword } from "../crypto/passwords.ts";
import { joinOnFirstSignIn } from "./invitations.ts";
import { clearAttempts, reserveAttempt } from "./login-throttle.ts";
import { passwordSignInAllowed } from "./password-policy.ts";
import { issueSession, type Session } from "./session.ts";
import { secondFactorTokenSeconds, signToken, verifyToken } from "./tokens.ts";
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
  | "totp_invalid"
  | "password_disabled";

export const normaliseEmail = (email: string) => email.trim().toLowerCase();

interface FirstFactor {
  user: typeof users.$inferSelect;
  orgId: string;
  fail: (reason: FailureReason, error?: AppError) => Promise<never>;
}

/** Throttle, e-mail and password: what every sign-in checks first. */
async function firstFactor(
  ctx: RequestContext,
  input: { email: string; password: string },
): Promise<FirstFactor> {
  const email = normaliseEmail(input.email);
  const now = ctx.clock();
  const [user] = await ctx.db.select().from(users).where(eq(users.email, email)).limit(1);
  let first = user ? await firstOrganization(ctx, user.id) : undefined;
  const fail = failure(ctx, { actorLabel: email, actorId: user?.id, orgId: first });
  const reservation = await reserveAttempt(ctx.db, { email, address: ctx.ip }, now);
  if (!reservation.allowed) return fail("locked", reservation.error);
  if (!user) {
    await burnPasswordCheck(input.password, ctx.config.passwordHash);
    return fail("unknown_email");
  }
  if (!(await verifyPassword(input.password, user.passwordHash))) return fail("wrong_password");
  // An account an administrator added joins on its first sign-in (invitations.ts).
  first ??= await joinOnFirstSignIn(ctx, user);
  if (!first) return fail("no_organization");
  // Checked after the password, so only someone who knows it learns that passwords are off here.
  if (!(await passwordSignInAllowed(ctx.db, first, email)))
    return fail(
      "password_disabled",
      new AppError(
        "forbidden",
        "password sign-in is turned off for this organization: use its single sign-on",
      ),
    );
  return { user, orgId: first, fail };
}

// The first organization joined is the one a session starts in; /auth/switch-org changes it.
async function firstOrganization(ctx: RequestContext, userId: string): Promise<string | undefined> {
  const [first] = await ctx.db
    .select({ orgId: memberships.orgId })
    .from(memberships)
    .where(and(eq(memberships.userId, userId), isNull(memberships.deactivatedAt)))
    .orderBy(asc(memberships.createdAt))
    .limit(1);
  return first?.orgId;
}

function failure(
  ctx: RequestContext,
  who: { actorLabel: string; actorId?: string | undefined; orgId?: string | undefined },
) {
  return async (reason: FailureReason, error: AppError = badCredentials()): Promise<never> => {
    await writeAudit(ctx.db, ctx, { action: "auth.login", outcome: "failure", details: { reason }, ...who });
    throw error;
  };
}

async function secondFactor(ctx: RequestContext, f: FirstFactor, code: string | undefined): Promise<void> {
  if (!code) return f.fail("totp_missing", new AppError("totp_required", "a TOTP code is required"));
  if (!(await consumeTotpCode(ctx, ctx.db, f.user, code))) {
    return f.fail(
      "totp_invalid",
      new AppError("totp_required", "the TOTP code is wrong, expired or already used"),
    );
  }
}

async function finish(ctx: RequestContext, f: FirstFactor): Promise<Session> {
  await clearAttempts(ctx.db, f.user.email, ctx.clock());
  return ctx.db.transaction(async (tx) => {
    const session = await issueSession(ctx, tx, f.user, f.orgId);
    await writeAudit(tx, ctx, {
      action: "auth.login",
      outcome: "success",
      actorLabel: f.user.email,
      actorId: f.user.id,
      orgId: f.orgId,
    });
    return session;
  });
}

/** Sign-in in one request (the API's): e-mail, password and, when two-factor is on, the code. */
export async function login(ctx: RequestContext, input: LoginInput): Promise<Session> {
  const f = await firstFactor(ctx, input);
  if (f.user.totpEnabled) await secondFactor(ctx, f, input.totp_code);
  return finish(ctx, f);
}

/**
 * Sign-in in two steps (the dashboard's), step one: e-mail and password. Without two-factor it is the
 * whole sign-in; with it, the answer is a token good for five minutes that proves the password was
 * right, so step two asks for the code alone and the password is never kept in a page.
 */
export async function beginLogin(
  ctx: RequestContext,
  input: { email: string; password: string },
): Promise<{ session: Session } | { secondFactorToken: string }> {
  const f = await firstFactor(ctx, input);
  if (!f.user.totpEnabled) return { session: await finish(ctx, f) };
  const secondFactorToken = await signToken(
    ctx.config.jwtSecret,
    { sub: f.user.id, org: f.orgId, typ: "second_factor" },
    secondFactorTokenSeconds,
    ctx.clock(),
  );
  return { secondFactorToken };
}

/**
 * Step two: the code, with step one's token. Wrong codes count against the e-mail's sign-in throttle
 * like wrong passwords; an expired or forged token is `unauthenticated` (start again).
 */
export async function completeLogin(
  ctx: RequestContext,
  input: { secondFactorToken: string; code: string },
): Promise<Session> {
  const claims = await verifyToken(
    ctx.config.jwtSecret,
    input.secondFactorToken,
    "second_factor",
    ctx.clock(),
  );
  const [user] = await ctx.db.select().from(users).where(eq(users.id, claims.sub)).limit(1);
  if (!user) throw badCredentials();
  const orgId = (await firstOrganization(ctx, user.id)) ?? claims.org;
  const f: FirstFactor = {
    user,
    orgId,
    fail: failure(ctx, { actorLabel: user.email, actorId: user.id, orgId }),
  };
  const reservation = await reserveAttempt(ctx.db, { email: user.email, address: ctx.ip }, ctx.clock());
  if (!reservation.allowed) return f.fail("locked", reservation.error);
  if (user.totpEnabled) await secondFactor(ctx, f, input.code);
  return finish(ctx, f);
}
