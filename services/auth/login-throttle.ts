// Slows down, then locks, guessing of passwords (and of TOTP codes) per e-mail.
//
// Every attempt is counted *before* its password is checked, under a row lock, so a burst of parallel
// guesses cannot slip through before the first failure is recorded; a complete sign-in deletes the
// count. E-mails without a user are counted the same way, so the lockout reveals nothing about which
// e-mails exist, and a refused attempt is answered exactly like a wrong password (see login.ts).
import { and, eq, lt, lte, or } from "drizzle-orm";
import type { Executor } from "../../db/client.ts";
import { type LoginAttemptRow, loginAttempts } from "../../db/schema/index.ts";

export const loginThrottle = {
  /** The count restarts once no attempt came for this long. */
  windowMs: 15 * 60_000,
  /** Attempts allowed back to back; from the next one on, each waits. */
  freeAttempts: 5,
  /** The wait before the attempt after the n-th: 1 s, 2 s, 4 s, 8 s, 16 s. */
  firstDelayMs: 1000,
  /** The attempt that locks the e-mail, and for how long. */
  lockAtAttempt: 10,
  lockMs: 15 * 60_000,
} as const;

type State = Pick<LoginAttemptRow, "attempts" | "lastAttemptAt" | "notBefore">;

/** The policy alone: whether an attempt at `now` may be checked, and the state it leaves. */
export function nextAttempt(
  state: State | undefined,
  now: Date,
): { allowed: false } | { allowed: true; state: State } {
  if (state && state.notBefore > now) return { allowed: false };
  const fresh = !state || now.getTime() - state.lastAttemptAt.getTime() >= loginThrottle.windowMs;
  const attempts = fresh ? 1 : state.attempts + 1;
  let waitMs = 0;
  if (attempts >= loginThrottle.lockAtAttempt) waitMs = loginThrottle.lockMs;
  else if (attempts >= loginThrottle.freeAttempts) {
    waitMs = loginThrottle.firstDelayMs * 2 ** (attempts - loginThrottle.freeAttempts);
  }
  return {
    allowed: true,
    state: { attempts, lastAttemptAt: now, notBefore: new Date(now.getTime() + waitMs) },
  };
}

/** Counts an attempt for `email` (normalised); false when it must be refused unchecked. */
export async function reserveAttempt(db: Executor, email: string, now: Date): Promise<boolean> {
  return db.transaction(async (tx) => {
    await tx
      .insert(loginAttempts)
      .values({ email, attempts: 0, lastAttemptAt: now, notBefore: now })
      .onConflictDoNothing();
    const [row] = await tx.select().from(loginAttempts).where(eq(loginAttempts.email, email)).for("update");
    const next = nextAttempt(row?.attempts ? row : undefined, now);
    if (!next.allowed) return false;
    await tx.update(loginAttempts).set(next.state).where(eq(loginAttempts.email, email));
    return true;
  });
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
}
