// The rate limiter with REDIS_URL: one Lua script decides both limits atomically, so every gateway
// process sharing the Redis enforces one limit. The arithmetic is core/ports/gcra.ts `admit`.

import { decision, type RateDecision, type RateLimiter, type RateLimits } from "#core/ports/rate-limiter.ts";
import type { RedisCommands } from "./client.ts";
import { redisScript, runScript } from "./script.ts";

// KEYS[1] = requests TAT, KEYS[2] = tokens TAT
// ARGV: now, reqLimit, reqPeriod, tokLimit, tokPeriod, tokCost, carried, tokCertain (a limit of 0 means
// none; carried: the token corrections of earlier requests on this key, applied first, as correctScript
// does; tokCertain: the part of tokCost that must fit, the rest may cross while the limit is not used up)
// Returns: { allowed (0/1), reqTat, tokTat, reqRetry, tokRetry } as strings (floats survive as text).
const takeScript = redisScript(`
local now = tonumber(ARGV[1])
local carried = tonumber(ARGV[7] or '0')
if carried ~= 0 and tonumber(ARGV[4]) > 0 then
  local tat = tonumber(redis.call('GET', KEYS[2]) or '0')
  local nxt = math.max(now, tat + carried * tonumber(ARGV[5]) / tonumber(ARGV[4]))
  redis.call('SET', KEYS[2], tostring(nxt), 'PX', math.ceil(tonumber(ARGV[5])) + 1000)
end
local function admit(key, limit, period, cost, certain)
  if limit <= 0 then return 1, 0, 0, 0 end
  local tat = tonumber(redis.call('GET', key) or '0')
  local interval = period / limit
  local base = math.max(tat, now)
  local needed = base + certain * interval
  if needed - now > period or (certain < cost and base - now >= period) then
    return 0, base, base, math.max(1, math.ceil(needed - now - period))
  end
  return 1, base + cost * interval, base, 0
end
local ra, rt, rb, rr = admit(KEYS[1], tonumber(ARGV[2]), tonumber(ARGV[3]), 1, 1)
local ta, tt, tb, tr = admit(KEYS[2], tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[8] or ARGV[6]))
local allowed = ra == 1 and ta == 1
if allowed then
  if tonumber(ARGV[2]) > 0 then redis.call('SET', KEYS[1], tostring(rt), 'PX', math.ceil(tonumber(ARGV[3])) + 1000) end
  if tonumber(ARGV[4]) > 0 then redis.call('SET', KEYS[2], tostring(tt), 'PX', math.ceil(tonumber(ARGV[5])) + 1000) end
  return { 1, tostring(rt), tostring(tt), 0, 0 }
end
-- Refused: nothing was charged, so report the stored state.
return { 0, tostring(rb), tostring(tb), rr, tr }
`);

// KEYS[1] = tokens TAT; ARGV: now, tokLimit, tokPeriod, delta
const correctScript = redisScript(`
local tat = tonumber(redis.call('GET', KEYS[1]) or '0')
local interval = tonumber(ARGV[3]) / tonumber(ARGV[2])
local nxt = math.max(tonumber(ARGV[1]), tat + tonumber(ARGV[4]) * interval)
redis.call('SET', KEYS[1], tostring(nxt), 'PX', math.ceil(tonumber(ARGV[3])) + 1000)
return 1
`);

/** How long a token correction may wait for the next request of its key before it is sent alone. */
const correctionDelayMs = 250;

/** Runs `send` after `delayMs`; a test gives its own to send at once what the timer would send later. */
export type ScheduleFlush = (send: () => Promise<void>, delayMs: number) => void;

const unrefTimer: ScheduleFlush = (send, delayMs) => {
  setTimeout(() => void send(), delayMs).unref?.();
};

export class RedisLimiter implements RateLimiter {
  readonly remote = true;
  /**
   * Token corrections not yet in Redis, per key: each rides along with the key's next `take` (one
   * round trip a request instead of two), or is sent alone after `correctionDelayMs`.
   */
  private readonly pending = new Map<string, { delta: number; limits: RateLimits }>();
  private flushScheduled = false;

  constructor(
    private readonly redis: RedisCommands,
    private readonly prefix = "llmp:rl:",
    private readonly now: () => number = Date.now,
    private readonly scheduleFlush: ScheduleFlush = unrefTimer,
  ) {}

  async take(key: string, limits: RateLimits, tokens: number, certainTokens = tokens): Promise<RateDecision> {
    const now = this.now();
    const carried = this.pending.get(key);
    if (carried) this.pending.delete(key);
    let reply: [number, string, string, number, number];
    try {
      reply = (await runScript(this.redis, takeScript, [
        "2",
        `${this.prefix}${key}:r`,
        `${this.prefix}${key}:t`,
        String(now),
        String(limits.requests?.limit ?? 0),
        String(limits.requests?.periodMs ?? 0),
        String(limits.tokens?.limit ?? 0),
        String(limits.tokens?.periodMs ?? 0),
        String(tokens),
        String(carried && limits.tokens ? carried.delta : 0),
        String(certainTokens),
      ])) as [number, string, string, number, number];
    } catch (error) {
      if (carried) this.carry(key, carried.limits, carried.delta);
      throw error;
    }
    if (carried && !limits.tokens) this.carry(key, carried.limits, carried.delta);
    const [allowed, reqTat, tokTat, reqRetry, tokRetry] = reply;
    const state = { requests: Number(reqTat), tokens: Number(tokTat) };
    const r = limits.requests
      ? { allowed: reqRetry === 0, retryAfterMs: reqRetry, remaining: 0, tat: 0 }
      : undefined;
    const t = limits.tokens
      ? { allowed: tokRetry === 0, retryAfterMs: tokRetry, remaining: 0, tat: 0 }
      : undefined;
    return decision(limits, allowed === 1, r, t, state, now);
  }

  async correct(key: string, limits: RateLimits, deltaTokens: number): Promise<void> {
    if (!limits.tokens || deltaTokens === 0) return;
    this.carry(key, limits, deltaTokens);
  }

  private carry(key: string, limits: RateLimits, delta: number): void {
    const known = this.pending.get(key);
    this.pending.set(key, { delta: (known?.delta ?? 0) + delta, limits });
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    this.scheduleFlush(() => this.flushCorrections(), correctionDelayMs);
  }

  /** Sends the corrections no request has carried (all at once: the client pipelines them). */
  async flushCorrections(): Promise<void> {
    this.flushScheduled = false;
    const due = [...this.pending];
    this.pending.clear();
    await Promise.all(
      due.map(async ([key, { delta, limits }]) => {
        if (!limits.tokens || delta === 0) return;
        try {
          await runScript(this.redis, correctScript, [
            "1",
            `${this.prefix}${key}:t`,
            String(this.now()),
            String(limits.tokens.limit),
            String(limits.tokens.periodMs),
            String(delta),
          ]);
        } catch {
          // Redis unreachable: the correction only gives tokens back (or charges a few); dropping it
          // errs by at most this request's estimate, as the limiter's store-failure policy allows.
        }
      }),
    );
  }
}
