// Reservations: what a call may use of a daily or monthly allowance (the quota's requests and tokens,
// the budgets' money) is reserved when the call is admitted and settled with what it really used when
// it ends. A counter holds what was used plus what calls in flight reserved, so parallel calls see one
// another: 100 calls at once against a budget of 10, each reserving and costing 1.0, admit exactly 10.
//
// The rule is the budgets' and quotas' own: a call starts while the allowance is not used up, and the
// part of its use known for sure (one request; its prompt's tokens) must fit. What it may use beyond
// that (its completion, at most max_tokens) is reserved but may cross the limit, so the call that
// crosses an allowance is the last one served, and the overrun is at most one call's maximum.
//
// In process the counters are this process's (exact within it; other processes' use arrives with the
// database standing, refreshed each second); with REDIS_URL one Lua script checks and reserves every
// counter of a call atomically for every gateway sharing the Redis (adapters/redis/reservations.ts).

/** One counter a call is charged to. */
export interface Charge {
  /** The counter's name: its scope and period (`q:r:<org>:<day>`). */
  key: string;
  limit: number;
  /** Reserved now and settled at the end: the call's maximum. */
  amount: number;
  /** The part of `amount` certain to be used: it must fit under the limit. */
  certain: number;
  /** What the database says was used in the period so far (seeds a counter that is not there yet). */
  used: number;
  /** How long the counter is kept after its last change (past the end of its period). */
  ttlMs: number;
}

export interface Settlement {
  key: string;
  /** What the call used minus what it reserved. */
  delta: number;
  /** What it reserved (no longer in flight). */
  reserved: number;
}

export type ReserveResult =
  | { ok: true }
  /** `index`: the first charge refused; `used`: its counter then (use plus reservations). */
  | { ok: false; index: number; used: number };

export interface ReservationStore {
  /** Charges every amount if every counter allows its charge; else nothing. */
  reserve(charges: Charge[]): Promise<ReserveResult>;
  /** Adds `delta` (used minus reserved; negative: a refund) to counters that exist. */
  settle(changes: Settlement[]): Promise<void>;
}

/** Float sums of prices (0.1 + 0.2) must not refuse a call that fits exactly. */
const epsilon = 1e-9;

export function allows(used: number, charge: Pick<Charge, "limit" | "certain">): boolean {
  return used < charge.limit - epsilon && used + charge.certain <= charge.limit + epsilon;
}

interface Counter {
  value: number;
  /** Reserved by calls of this process still in flight. */
  inFlight: number;
  expiresAt: number;
}

/** The store without REDIS_URL: exact within this process. */
export class InProcessReservations implements ReservationStore {
  private readonly counters = new Map<string, Counter>();
  private sweeps = 0;

  constructor(private readonly now: () => number = Date.now) {}

  async reserve(charges: Charge[]): Promise<ReserveResult> {
    return this.reserveNow(charges);
  }

  /** Synchronous: nothing runs between the check and the charge. */
  reserveNow(charges: Charge[]): ReserveResult {
    const now = this.now();
    if (++this.sweeps % 1024 === 0) this.sweep(now);
    const charged = charges.map((charge) => {
      const known = this.counters.get(charge.key);
      const counter =
        known && known.expiresAt > now ? known : { value: 0, inFlight: 0, expiresAt: now + charge.ttlMs };
      // The database's figure includes what other processes used; this process's counter includes
      // what it settled and has not written yet. Neither misses what the other has, so the larger
      // (with the reservations in flight) is the closer.
      counter.value = Math.max(counter.value, charge.used + counter.inFlight);
      this.counters.set(charge.key, counter);
      return { charge, counter };
    });
    for (const [index, { charge, counter }] of charged.entries()) {
      const used = counter.value;
      if (!allows(used, charge)) return { ok: false, index, used };
    }
    for (const { charge, counter } of charged) {
      counter.value += charge.amount;
      counter.inFlight += charge.amount;
      counter.expiresAt = now + charge.ttlMs;
    }
    return { ok: true };
  }

  async settle(changes: Settlement[]): Promise<void> {
    this.settleNow(changes);
  }

  settleNow(changes: Settlement[]): void {
    for (const { key, delta, reserved } of changes) {
      const counter = this.counters.get(key);
      if (!counter) continue;
      counter.value = Math.max(0, counter.value + delta);
      counter.inFlight = Math.max(0, counter.inFlight - reserved);
    }
  }

  private sweep(now: number): void {
    for (const [key, counter] of this.counters) if (counter.expiresAt < now) this.counters.delete(key);
  }
}
