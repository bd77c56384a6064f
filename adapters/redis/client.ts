// Redis through Bun's built-in client: shared counters when REDIS_URL is set. Nothing here is required
// when it is unset: callers fall back to in-process counters.
import { RedisClient } from "bun";

export function openRedis(url: string): RedisClient {
  return new RedisClient(url, { autoReconnect: true, enableOfflineQueue: false, connectionTimeout: 5000 });
}

export async function pingRedis(client: RedisClient): Promise<void> {
  const answer = await client.send("PING", []);
  if (answer !== "PONG") throw new Error(`unexpected PING answer: ${String(answer)}`);
}
