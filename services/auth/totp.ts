// Two-factor sign-in with time-based one-time codes (RFC 6238: 30 s steps, 6 digits, SHA-1, which is
// what every authenticator app speaks). The secret is sealed at rest; a code is accepted once: the
// step it belongs to is stored, and no code of that step or an earlier one is accepted again.
import { and, eq, isNull, lt, or } from "drizzle-orm";
import { generateSecret, generateURI, verify } from "otplib";
import { AppError, invalid, notFound } from "#core/errors.ts";
import type { Executor } from "#db/client.ts";
import { users } from "#db/schema/index.ts";
import { mutate } from "../audit/mutate.ts";
import { type AppContext, actorOf, type RequestContext } from "../context.ts";
import { open, seal } from "../crypto/secret-box.ts";
import { clearAttempts, reserveAttempt } from "./login-throttle.ts";

export const totpIssuer = "LLM Platform";
/** Codes of the step before and after the current one are accepted too (clocks drift). */
const toleranceSeconds = 30;

export interface TotpUser {
  id: string;
  totpSecret: string | null;
  totpLastStep: number | null;
}

/**
 * Checks `code` against the user's secret and, when it is valid and its step is newer than the last
 * one accepted, records that step. Of two requests racing with the same code, one wins.
 */
export async function consumeTotpCode(
  ctx: AppContext,
  db: Executor,
  user: TotpUser,
  code: string,
): Promise<boolean> {
  if (!user.totpSecret || !/^\d{6}$/.test(code)) return false;
  const secret = open(ctx.config.encryptionKey, user.totpSecret);
  let step: number;
  try {
    // otplib compares each candidate code in constant time.
    const result = await verify({
      secret,
      token: code,
      epoch: Math.floor(ctx.clock().getTime() / 1000),
      epochTolerance: toleranceSeconds,
      ...(user.totpLastStep !== null ? { afterTimeStep: user.totpLastStep } : {}),
    });
    // The functional verify types TOTP and HOTP results alike; a TOTP result carries its step.
    if (!result.valid || !("timeStep" in result)) return false;
    step = result.timeStep;
  } catch {
    // A stored step ahead of the window (the clock went back) makes otplib throw: refuse the code.
    return false;
  }
  const claimed = await db
    .update(users)
    .set({ totpLastStep: step, updatedAt: ctx.clock() })
    .where(and(eq(users.id, user.id), or(isNull(users.totpLastStep), lt(users.totpLastStep, step))))
    .returning({ id: users.id });
  return claimed.length === 1;
}

const wrongCode = () => invalid("code", "is not a current code of your authenticator, or was already used");

async function lockedUser(tx: Executor, id: string) {
  const [user] = await tx.select().from(users).where(eq(users.id, id)).for("update");
  if (!user) throw notFound("user");
  return user;
}

export interface TotpSetup {
  secret: string;
  otpauth_url: string;
}

/** A new secret, not yet in force: /auth/totp/verify with a code from it turns two-factor on. */
export async function setupTotp(ctx: RequestContext): Promise<TotpSetup> {
  const actor = actorOf(ctx);
  return mutate(ctx, "auth.totp.setup", { type: "user", id: actor.userId }, async (tx) => {
    const user = await lockedUser(tx, actor.userId);
    if (user.totpEnabled) {
      throw new AppError("failed_precondition", "two-factor sign-in is already on; disable it first");
    }
    const secret = generateSecret();
    await tx
      .update(users)
      .set({ totpSecret: seal(ctx.config.encryptionKey, secret), totpLastStep: null, updatedAt: ctx.clock() })
      .where(eq(users.id, user.id));
    return {
      result: { secret, otpauth_url: generateURI({ issuer: totpIssuer, label: user.email, secret }) },
    };
  });
}

/**
 * Turns two-factor on (`enable`) or off with a current code. Wrong codes count toward the e-mail's
 * sign-in lockout, so a stolen access token cannot be used to guess its way past the second factor.
 */
async function switchTotp(
  ctx: RequestContext,
  code: string,
  enable: boolean,
): Promise<{ totp_enabled: boolean }> {
  const actor = actorOf(ctx);
  // Counted outside the change's transaction: a refused code rolls that back, the count must stay.
  const { allowed } = await reserveAttempt(ctx.db, { email: actor.email, address: ctx.ip }, ctx.clock());
  const result = await mutate(
    ctx,
    enable ? "auth.totp.enable" : "auth.totp.disable",
    { type: "user", id: actor.userId },
    async (tx) => {
      const user = await lockedUser(tx, actor.userId);
      if (enable && user.totpEnabled)
        throw new AppError("failed_precondition", "two-factor sign-in is already on");
      if (enable && !user.totpSecret)
        throw new AppError("failed_precondition", "call POST /auth/totp/setup first");
      if (!enable && !user.totpEnabled)
        throw new AppError("failed_precondition", "two-factor sign-in is not on");
      if (!allowed || !(await consumeTotpCode(ctx, tx, user, code))) throw wrongCode();
      const change = enable
        ? { totpEnabled: true }
        : { totpEnabled: false, totpSecret: null, totpLastStep: null };
      await tx
        .update(users)
        .set({ ...change, updatedAt: ctx.clock() })
        .where(eq(users.id, user.id));
      return { result: { totp_enabled: enable } };
    },
  );
  await clearAttempts(ctx.db, actor.email, ctx.clock());
  return result;
}

export const enableTotp = (ctx: RequestContext, code: string) => switchTotp(ctx, code, true);
export const disableTotp = (ctx: RequestContext, code: string) => switchTotp(ctx, code, false);
