// GCRA (the generic cell rate algorithm): a limit of L per period P lets a burst of L through at once
// and then one every P/L. The whole state of a limit is one number, its theoretical arrival time (TAT),
// so the in-process and the Redis implementations share this arithmetic exactly (the Lua script in
// adapters/redis/gcra.ts is a transcription of `admit`).

export interface LimitRule {
  /** Units allowed per period (requests, or tokens). */
  limit: number;
  periodMs: number;
}

export interface Verdict {
  allowed: boolean;
  /** Units still available right after this decision. */
  remaining: number;
  /** When denied: how long until `cost` units fit. */
  retryAfterMs: number;
  /** The new TAT to store (unchanged when denied). */
  tat: number;
}

/**
 * Charges `cost` units if they fit. `certain` (default: all of `cost`) is the part sure to be used: it
 * must fit under the limit; the rest (a completion reserved at its maximum, settled with `adjust` when
 * the call ends) may cross it while the limit is not used up, so a call whose maximum is larger than
 * the whole limit can still run, and the call that crosses is the last admitted until use comes back
 * under it: the overrun is at most one call's uncertain part (core/ports/reservations.ts has the
 * same rule for the daily allowances).
 */
export function admit(rule: LimitRule, tat: number, now: number, cost: number, certain = cost): Verdict {
  const interval = rule.periodMs / rule.limit;
  const base = Math.max(tat, now);
  const needed = base + certain * interval;
  const usedUp = certain < cost && base - now >= rule.periodMs;
  if (needed - now > rule.periodMs || usedUp) {
    return {
      allowed: false,
      remaining: remainingAt(rule, base, now),
      retryAfterMs: Math.max(1, Math.ceil(needed - now - rule.periodMs)),
      tat,
    };
  }
  const next = base + cost * interval;
  return { allowed: true, remaining: remainingAt(rule, next, now), retryAfterMs: 0, tat: next };
}

export function remainingAt(rule: LimitRule, tat: number, now: number): number {
  const interval = rule.periodMs / rule.limit;
  return Math.max(0, Math.floor((rule.periodMs - Math.max(0, tat - now)) / interval));
}

/** Corrects a charge made on an estimate (prompt tokens guessed up front, real usage known after). */
export function adjust(rule: LimitRule, tat: number, now: number, delta: number): number {
  const interval = rule.periodMs / rule.limit;
  return Math.max(now, tat + delta * interval);
}
