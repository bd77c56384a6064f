// Redis through Bun's built-in client: shared counters when REDIS_URL is set. Nothing here is required
// when it is unset: callers fall back to in-process counters.
import { RedisClient } from "bun";

/**
 * Connects before first use. The offline queue is off so that, while Redis is down, a command fails at
 * once instead of waiting: the hot path would rather decide than hang.
 */
export async function openRedis(url: string, onUnreachable: (error: unknown) => void): Promise<RedisClient> {
  const client = new RedisClient(url, {
    autoReconnect: true,
    enableOfflineQueue: false,
    connectionTimeout: 5000,
  });
  try {
    await client.connect();
  } catch (error) {
    onUnreachable(error);
  }
  return client;
}

export async function pingRedis(client: RedisClient): Promise<void> {
  if (!client.connected) await client.connect();
  const answer = await client.send("PING", []);
  if (answer !== "PONG") throw new Error(`unexpected PING answer: ${String(answer)}`);
}
