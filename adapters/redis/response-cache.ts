// The response cache's answers in Redis (services/inference/response-cache/), shared by every gateway
// process on one REDIS_URL. One key per answer, `llmc:resp:{<org>:<deployment>}:<sha-256>` →
// "<stored at ms>\n<chat.completion JSON>", with the policy's TTL; a sorted set per organization and
// deployment (`llmc:resp-index:{…}`, scored by the time stored) bounds them by max_entries, the oldest
// deleted first, in the same script that stores. The braces keep a scope's keys in one cluster slot.
// A short claim key (`llmc:resp-lock:…`, SET NX PX) lets one process compute an answer while the others
// wait for it. Redis away or slow reads as a miss and stores nothing: the request goes to the model.
import type { RedisCommands } from "./client.ts";

interface Scope {
  orgId: string;
  deploymentId: string;
}

const tag = (scope: Scope) => `{${scope.orgId}:${scope.deploymentId}}`;
const entryKey = (scope: Scope, key: string) => `llmc:resp:${tag(scope)}:${key}`;
const indexKey = (scope: Scope) => `llmc:resp-index:${tag(scope)}`;
const lockKey = (scope: Scope, key: string) => `llmc:resp-lock:${tag(scope)}:${key}`;

// KEYS[1]: the entry, KEYS[2]: the scope's index. ARGV: value, ttl ms, max entries, stored at ms.
const putScript = `redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
redis.call('ZADD', KEYS[2], ARGV[4], KEYS[1])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', tonumber(ARGV[4]) - tonumber(ARGV[2]))
local extra = redis.call('ZCARD', KEYS[2]) - tonumber(ARGV[3])
if extra > 0 then
  local old = redis.call('ZRANGE', KEYS[2], 0, extra - 1)
  redis.call('ZREMRANGEBYRANK', KEYS[2], 0, extra - 1)
  for _, k in ipairs(old) do redis.call('DEL', k) end
end
redis.call('PEXPIRE', KEYS[2], ARGV[2])
return 1`;

export class RedisResponseCacheStore {
  readonly kind = "redis";

  constructor(
    private readonly redis: RedisCommands,
    private readonly onError: (error: unknown) => void = () => {},
  ) {}

  async get(scope: Scope, key: string): Promise<{ text: string; storedAtMs: number } | undefined> {
    try {
      const value = await this.redis.send("GET", [entryKey(scope, key)]);
      if (typeof value !== "string") return undefined;
      const split = value.indexOf("\n");
      const storedAtMs = Number(value.slice(0, split));
      if (split < 0 || !Number.isFinite(storedAtMs)) return undefined;
      return { storedAtMs, text: value.slice(split + 1) };
    } catch (error) {
      this.onError(error);
      return undefined;
    }
  }

  async put(
    scope: Scope,
    key: string,
    answer: { text: string; storedAtMs: number },
    bounds: { ttlMs: number; maxEntries: number },
  ): Promise<void> {
    try {
      await this.redis.send("EVAL", [
        putScript,
        "2",
        entryKey(scope, key),
        indexKey(scope),
        `${answer.storedAtMs}\n${answer.text}`,
        String(Math.max(1, Math.round(bounds.ttlMs))),
        String(bounds.maxEntries),
        String(answer.storedAtMs),
      ]);
    } catch (error) {
      this.onError(error);
    }
  }

  /** True when this process may compute the answer (it got the claim, or Redis cannot say). */
  async claim(scope: Scope, key: string, ttlMs: number): Promise<boolean> {
    try {
      const answer = await this.redis.send("SET", [lockKey(scope, key), "1", "NX", "PX", String(ttlMs)]);
      return answer === "OK";
    } catch (error) {
      this.onError(error);
      return true;
    }
  }

  async release(scope: Scope, key: string): Promise<void> {
    try {
      await this.redis.send("DEL", [lockKey(scope, key)]);
    } catch (error) {
      this.onError(error);
    }
  }
}
