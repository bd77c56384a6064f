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

export function admit(rule: LimitRule, tat: number, now: number, cost: number): Verdict {
  const interval = rule.periodMs / rule.limit;
  const base = Math.max(tat, now);
  const next = base + cost * interval;
  if (next - now > rule.periodMs) {
    return {
      allowed: false,
      remaining: remainingAt(rule, base, now),
      retryAfterMs: Math.ceil(next - now - rule.periodMs),
      tat,
    };
  }
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
