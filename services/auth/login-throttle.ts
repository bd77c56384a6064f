// Slows down, then locks, guessing of passwords (and of TOTP codes): per e-mail (an account, whether
// or not a user has it), and per client address across every e-mail. Figures: docs/sessions-and-login.md
// (OWASP ASVS 4.0.3, 2.2.1: at most 100 failed attempts an hour on one account).
//
// Every attempt is counted *before* its password is checked, by one INSERT ... ON CONFLICT DO UPDATE
// statement that also decides it: the database serialises the statements on the row, so a burst of
// parallel guesses gets exactly the checks that guesses one after another would. A refused attempt is
// not counted, costs no password hash and is answered 429 with Retry-After. E-mails without a user are
// counted the same way, so the lockout reveals nothing about which e-mails exist. A complete sign-in
// deletes the e-mail's count (not the address's: one good account must not launder an address).
import { and, eq, lt, lte, or, sql } from "drizzle-orm";
import { AppError } from "#core/errors.ts";
import type { Executor } from "#db/client.ts";
import { type LoginAttemptRow, loginAddressAttempts, loginAttempts } from "#db/schema/index.ts";

export interface ThrottlePolicy {
  /** The count restarts once no attempt came for this long. */
  windowMs: number;
  /** Attempts allowed back to back; from the next one on, each waits. */
  freeAttempts: number;
  /** The wait before the attempt after the n-th free one: doubles each time. */
  firstDelayMs: number;
  /** The attempt that locks, and for how long. */
  lockAtAttempt: number;
  lockMs: number;
}

/** Per e-mail: 5 back to back, then waits of 1, 2, 4, 8, 16 s; the 10th locks for 15 minutes. */
export const loginThrottle = {
  windowMs: 15 * 60_000,
  freeAttempts: 5,
  firstDelayMs: 1000,
  lockAtAttempt: 10,
  lockMs: 15 * 60_000,
} as const satisfies ThrottlePolicy;

/** Per client address: 20 attempts a minute, whichever e-mails they name; the 20th locks for a minute. */
export const addressThrottle = {
  windowMs: 60_000,
  freeAttempts: 20,
  firstDelayMs: 0,
  lockAtAttempt: 20,
  lockMs: 60_000,
} as const satisfies ThrottlePolicy;

type State = Pick<LoginAttemptRow, "attempts" | "lastAttemptAt" | "notBefore">;

/** The wait an attempt leaves before the next may be checked. */
export function waitAfter(attempts: number, policy: ThrottlePolicy = loginThrottle): number {
  if (attempts >= policy.lockAtAttempt) return policy.lockMs;
  if (attempts >= policy.freeAttempts && policy.firstDelayMs > 0) {
    return policy.firstDelayMs * 2 ** (attempts - policy.freeAttempts);
  }
  return 0;
}

/** The policy alone (what the SQL below computes): whether an attempt at `now` may be checked. */
export function nextAttempt(
  state: State | undefined,
  now: Date,
  policy: ThrottlePolicy = loginThrottle,
): { allowed: false } | { allowed: true; state: State } {
  if (state && state.notBefore > now) return { allowed: false };
  const fresh = !state || now.getTime() - state.lastAttemptAt.getTime() >= policy.windowMs;
  const attempts = fresh ? 1 : state.attempts + 1;
  return {
    allowed: true,
    state: { attempts, lastAttemptAt: now, notBefore: new Date(now.getTime() + waitAfter(attempts, policy)) },
  };
}

/** The two counts: the table, its key column and its policy. */
const counts = {
  email: { table: loginAttempts, key: loginAttempts.email, policy: loginThrottle },
  address: { table: loginAddressAttempts, key: loginAddressAttempts.address, policy: addressThrottle },
} as const;

/** One statement: count the attempt and decide it. Returns the ms to wait when refused, else 0. */
async function take(db: Executor, kind: keyof typeof counts, value: string, now: Date): Promise<number> {
  // One table's type for the builder; both have the same counting columns (db/schema/login-attempts.ts).
  const { table, key, policy } = counts[kind] as unknown as (typeof counts)["email"];
  const at = sql`${now.toISOString()}::timestamptz`;
  // Our own constants, not input: inlined so PostgreSQL need not guess parameter types.
  const int = (n: number) => sql.raw(String(Math.trunc(n)));
  const ms = (n: number) => sql.raw(`(${Math.trunc(n)} * interval '1 millisecond')`);
  const attempts = sql`(case when ${at} - ${table.lastAttemptAt} >= ${ms(policy.windowMs)} then 1 else ${table.attempts} + 1 end)`;
  const delayed =
    policy.firstDelayMs > 0
      ? sql`when ${attempts} >= ${int(policy.freeAttempts)} then ${ms(policy.firstDelayMs)} * power(2, ${attempts} - ${int(policy.freeAttempts)})`
      : sql``;
  const wait = sql`(case when ${attempts} >= ${int(policy.lockAtAttempt)} then ${ms(policy.lockMs)} ${delayed} else interval '0' end)`;
  const counted = await db
    .insert(table)
    .values({
      [kind === "email" ? "email" : "address"]: value,
      attempts: 1,
      lastAttemptAt: now,
      notBefore: new Date(now.getTime() + waitAfter(1, policy)),
    } as typeof table.$inferInsert)
    .onConflictDoUpdate({
      target: key,
      set: { attempts, lastAttemptAt: now, notBefore: sql`${at} + ${wait}` },
      setWhere: lte(table.notBefore, now),
    })
    .returning({ attempts: table.attempts });
  if (counted.length > 0) return 0;
  const [row] = await db.select({ notBefore: table.notBefore }).from(table).where(eq(key, value));
  return Math.max(1, (row?.notBefore.getTime() ?? now.getTime()) - now.getTime());
}

export type Reservation = { allowed: true } | { allowed: false; retryAfterS: number; error: AppError };

/**
 * Counts an attempt for the client address (when known) and for `email` (normalised), before anything
 * is checked. Refused: the error to answer (429 with Retry-After), nothing checked.
 */
export async function reserveAttempt(
  db: Executor,
  who: { email: string; address?: string | undefined },
  now: Date,
): Promise<Reservation> {
  let waitMs = 0;
  if (who.address) waitMs = await take(db, "address", who.address, now);
  if (waitMs === 0) waitMs = await take(db, "email", who.email, now);
  if (waitMs === 0) return { allowed: true };
  const retryAfterS = Math.ceil(waitMs / 1000);
  return {
    allowed: false,
    retryAfterS,
    error: new AppError("rate_limited", `too many sign-in attempts; retry in ${retryAfterS} s`, {
      retry_after_s: retryAfterS,
    }),
  };
}

/** A complete sign-in: forget the e-mail's attempts, and prune counts nobody touched for a window. */
export async function clearAttempts(db: Executor, email: string, now: Date): Promise<void> {
  const idleSince = new Date(now.getTime() - loginThrottle.windowMs);
  await db
    .delete(loginAttempts)
    .where(
      or(
        eq(loginAttempts.email, email),
        and(lt(loginAttempts.lastAttemptAt, idleSince), lte(loginAttempts.notBefore, now)),
      ),
    );
  await db
    .delete(loginAddressAttempts)
    .where(
      and(
        lt(loginAddressAttempts.lastAttemptAt, new Date(now.getTime() - addressThrottle.windowMs)),
        lte(loginAddressAttempts.notBefore, now),
      ),
    );
}
