// Rate limits of the inference hot path: requests and tokens per minute, per API key and deployment.
// Both limits are decided together and atomically: a request is charged to neither unless both allow it.
import { adjust, admit, type LimitRule, remainingAt } from "./gcra.ts";

export interface RateLimits {
  requests?: LimitRule | undefined;
  tokens?: LimitRule | undefined;
}

export interface RateDecision {
  allowed: boolean;
  /**
   * The counter store (Redis) did not answer: nothing was counted, and `allowed` says nothing. The
   * caller applies the policy's `on_store_error` (open: let it through; closed: refuse with 503).
   */
  storeUnavailable?: true;
  retryAfterMs: number;
  requests?: { limit: number; remaining: number };
  tokens?: { limit: number; remaining: number };
}

export interface RateLimiter {
  /**
   * `take` waits for a store across the network (Redis): a caller may do work that does not depend on
   * the answer while it travels. In process the answer is immediate, and such work would only cost
   * the refused requests its CPU.
   */
  readonly remote: boolean;
  /**
   * Charges one request and `tokens` tokens (the call's maximum) to `key`, if both limits allow:
   * `certainTokens` (default: all) must fit, the rest may cross the limit (gcra.ts `admit`).
   */
  take(key: string, limits: RateLimits, tokens: number, certainTokens?: number): Promise<RateDecision>;
  /** Corrects the token charge once the real usage is known (delta may be negative). */
  correct(key: string, limits: RateLimits, deltaTokens: number): Promise<void>;
}

interface State {
  requests: number;
  tokens: number;
  /** When both limits have fully recovered: the entry can be dropped. */
  idleAt: number;
}

/** The limiter without REDIS_URL: exact within this process. */
export class InProcessLimiter implements RateLimiter {
  readonly remote = false;
  private readonly states = new Map<string, State>();
  private sweeps = 0;

  constructor(private readonly now: () => number = Date.now) {}

  async take(key: string, limits: RateLimits, tokens: number, certainTokens = tokens): Promise<RateDecision> {
    const now = this.now();
    if (++this.sweeps % 1024 === 0) this.sweep(now);
    const state = this.states.get(key) ?? { requests: 0, tokens: 0, idleAt: 0 };
    const r = limits.requests ? admit(limits.requests, state.requests, now, 1) : undefined;
    const t = limits.tokens ? admit(limits.tokens, state.tokens, now, tokens, certainTokens) : undefined;
    const allowed = (r?.allowed ?? true) && (t?.allowed ?? true);
    if (allowed) {
      if (r) state.requests = r.tat;
      if (t) state.tokens = t.tat;
      state.idleAt = Math.max(state.requests, state.tokens);
      this.states.set(key, state);
    }
    return decision(limits, allowed, r, t, state, now);
  }

  async correct(key: string, limits: RateLimits, deltaTokens: number): Promise<void> {
    const state = this.states.get(key);
    if (!state || !limits.tokens || deltaTokens === 0) return;
    state.tokens = adjust(limits.tokens, state.tokens, this.now(), deltaTokens);
    state.idleAt = Math.max(state.requests, state.tokens);
  }

  private sweep(now: number): void {
    for (const [key, state] of this.states) if (state.idleAt < now) this.states.delete(key);
  }
}

/**
 * A limiter whose store may fail (Redis): a failure becomes a decision marked `storeUnavailable`
 * instead of an exception, and is reported (a metric, a throttled log line) once per occurrence.
 */
export class StoreFailureGuard implements RateLimiter {
  constructor(
    readonly inner: RateLimiter,
    private readonly report: (error: unknown) => void,
  ) {}

  get remote(): boolean {
    return this.inner.remote;
  }

  async take(key: string, limits: RateLimits, tokens: number, certainTokens = tokens): Promise<RateDecision> {
    try {
      return await this.inner.take(key, limits, tokens, certainTokens);
    } catch (error) {
      this.report(error);
      return { allowed: true, retryAfterMs: 0, storeUnavailable: true };
    }
  }

  async correct(key: string, limits: RateLimits, deltaTokens: number): Promise<void> {
    try {
      await this.inner.correct(key, limits, deltaTokens);
    } catch (error) {
      this.report(error);
    }
  }
}

type Admitted = ReturnType<typeof admit> | undefined;

export function decision(
  limits: RateLimits,
  allowed: boolean,
  r: Admitted,
  t: Admitted,
  state: { requests: number; tokens: number },
  now: number,
): RateDecision {
  const out: RateDecision = {
    allowed,
    retryAfterMs: allowed
      ? 0
      : Math.max(r && !r.allowed ? r.retryAfterMs : 0, t && !t.allowed ? t.retryAfterMs : 0),
  };
  if (limits.requests) {
    out.requests = {
      limit: limits.requests.limit,
      remaining: remainingAt(limits.requests, state.requests, now),
    };
  }
  if (limits.tokens) {
    out.tokens = { limit: limits.tokens.limit, remaining: remainingAt(limits.tokens, state.tokens, now) };
  }
  return out;
}
