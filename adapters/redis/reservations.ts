// Reservations with REDIS_URL: one Lua script checks every counter of a call and charges them all, or
// none, for every gateway process sharing the Redis. The rule is core/ports/reservations.ts
// `allows`. A counter that is not there yet (the first call of a period, a Redis restarted) starts
// from the database's figure the call brings along.

import {
  type Charge,
  InProcessReservations,
  type ReservationStore,
  type ReserveResult,
  type Settlement,
} from "#core/ports/reservations.ts";
import type { RedisCommands } from "./client.ts";
import { redisScript, runScript } from "./script.ts";

// KEYS: the counters; ARGV: per counter limit, certain, amount, ttl_ms, used (5 values each).
// Returns { 1 } when charged, { 0, index (1-based), used } when refused.
const reserveScript = redisScript(`
local values = {}
for i, key in ipairs(KEYS) do
  local base = (i - 1) * 5
  local value = redis.call('GET', key)
  if not value then
    value = ARGV[base + 5]
    redis.call('SET', key, value, 'PX', ARGV[base + 4])
  end
  local used = tonumber(value)
  local limit = tonumber(ARGV[base + 1])
  local certain = tonumber(ARGV[base + 2])
  if not (used < limit - 1e-9 and used + certain <= limit + 1e-9) then
    return { 0, i, tostring(used) }
  end
  values[i] = used
end
for i, key in ipairs(KEYS) do
  local base = (i - 1) * 5
  redis.call('INCRBYFLOAT', key, ARGV[base + 3])
  redis.call('PEXPIRE', key, ARGV[base + 4])
end
return { 1 }
`);

// KEYS: the counters; ARGV: their deltas. A counter gone (expired) is left alone.
const settleScript = redisScript(`
for i, key in ipairs(KEYS) do
  if redis.call('EXISTS', key) == 1 then redis.call('INCRBYFLOAT', key, ARGV[i]) end
end
return 1
`);

export class RedisReservations implements ReservationStore {
  constructor(
    private readonly redis: RedisCommands,
    private readonly prefix = "llmp:res:",
  ) {}

  async reserve(charges: Charge[]): Promise<ReserveResult> {
    if (charges.length === 0) return { ok: true };
    const args = charges.flatMap((c) => [
      String(c.limit),
      String(c.certain),
      String(c.amount),
      String(Math.ceil(c.ttlMs)),
      String(c.used),
    ]);
    const reply = (await runScript(this.redis, reserveScript, [
      String(charges.length),
      ...charges.map((c) => `${this.prefix}${c.key}`),
      ...args,
    ])) as [number, number?, string?];
    if (Number(reply[0]) === 1) return { ok: true };
    return { ok: false, index: Number(reply[1]) - 1, used: Number(reply[2]) };
  }

  async settle(changes: Settlement[]): Promise<void> {
    const moved = changes.filter((c) => c.delta !== 0);
    if (moved.length === 0) return;
    await runScript(this.redis, settleScript, [
      String(moved.length),
      ...moved.map((c) => `${this.prefix}${c.key}`),
      ...moved.map((c) => String(c.delta)),
    ]);
  }
}

/**
 * Redis, and this process's counters while Redis does not answer: calls are still held by what this
 * process reserved, and by the database's figures, rather than let through unbounded.
 */
export class RedisReservationsWithFallback implements ReservationStore {
  private readonly local = new InProcessReservations();

  constructor(
    private readonly remote: RedisReservations,
    private readonly report: (error: unknown) => void,
  ) {}

  async reserve(charges: Charge[]): Promise<ReserveResult> {
    try {
      return await this.remote.reserve(charges);
    } catch (error) {
      this.report(error);
      return this.local.reserveNow(charges);
    }
  }

  async settle(changes: Settlement[]): Promise<void> {
    // Local counters that exist (reserved while Redis was away) settle here; Redis ignores keys it
    // does not hold.
    this.local.settleNow(changes);
    try {
      await this.remote.settle(changes);
    } catch (error) {
      this.report(error);
    }
  }
}
