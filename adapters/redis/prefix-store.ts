// The prefix-routing table shared by gateway processes (adapters/upstream/prefix-table.ts) in Redis:
// one key per block of a recorded prompt, `llmp:prefix:<deployment>:<block hash>` → the replica's base
// URL, with the table's time to live. A recording is one EVAL (every block of the prompt at once), sent
// without waiting; a lookup is one MGET. Redis away or slow reads as "nothing known": the request is
// routed by this process's own table, or by load.
import type { SharedPrefixStore } from "#adapters/upstream/prefix-table.ts";
import type { RedisCommands } from "./client.ts";

const keyOf = (scope: string, block: bigint) => `llmp:prefix:${scope}:${block.toString(36)}`;

// KEYS: the blocks' keys; ARGV[1]: the endpoint, ARGV[2]: the time to live in milliseconds.
const recordScript = `for _, key in ipairs(KEYS) do redis.call('SET', key, ARGV[1], 'PX', ARGV[2]) end
return #KEYS`;

export class RedisPrefixStore implements SharedPrefixStore {
  constructor(
    private readonly redis: RedisCommands,
    private readonly onError: (error: unknown) => void = () => {},
  ) {}

  async lookup(scope: string, blocks: readonly bigint[]): Promise<(string | null)[]> {
    if (blocks.length === 0) return [];
    try {
      const answer = await this.redis.send(
        "MGET",
        blocks.map((b) => keyOf(scope, b)),
      );
      if (!Array.isArray(answer)) return [];
      return answer.map((v) => (typeof v === "string" ? v : null));
    } catch (error) {
      this.onError(error);
      return [];
    }
  }

  record(scope: string, blocks: readonly bigint[], endpoint: string, ttlMs: number): void {
    if (blocks.length === 0) return;
    const keys = blocks.map((b) => keyOf(scope, b));
    this.redis
      .send("EVAL", [recordScript, String(keys.length), ...keys, endpoint, String(Math.max(1, ttlMs))])
      .catch(this.onError);
  }
}
