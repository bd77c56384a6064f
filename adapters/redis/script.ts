// A Lua script run by its SHA-1, so that each call sends 40 characters rather than the whole script.
import { messageOf } from "#core/error-chain.ts";
import type { RedisCommands } from "./client.ts";

/** A Lua script and the SHA-1 EVALSHA names it by. */
export interface RedisScript {
  source: string;
  sha: string;
}

export const redisScript = (source: string): RedisScript => ({
  source,
  sha: new Bun.CryptoHasher("sha1").update(source).digest("hex"),
});

/** EVALSHA, and EVAL once when Redis does not know the script yet (a restart, a new server). */
export async function runScript(redis: RedisCommands, script: RedisScript, args: string[]): Promise<unknown> {
  try {
    return await redis.send("EVALSHA", [script.sha, ...args]);
  } catch (error) {
    if (!String(messageOf(error) ?? error).includes("NOSCRIPT")) throw error;
    return redis.send("EVAL", [script.source, ...args]);
  }
}
