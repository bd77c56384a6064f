// Redis through Bun's built-in client: shared counters when REDIS_URL is set. Nothing here is required
// when it is unset: callers fall back to in-process counters.
//
// Bun's client, left to reconnect by itself, retries for about 30 s (the start of a gateway waited that
// long for an unreachable REDIS_URL) and then stays failed for good; and a command sent to a Redis that
// accepts connections but does not answer waits forever. So this wrapper owns the connection instead:
// the client never reconnects on its own, every command has a short deadline, and while Redis is away
// a new connection is tried at most once a second, in the background, so requests never wait for it.
import { RedisClient } from "bun";
import { messageOf } from "#core/error-chain.ts";

/** What the limiter needs of Redis: one command at a time. */
export interface RedisCommands {
  send(command: string, args: string[]): Promise<unknown>;
}

/** Redis did not answer (down, unreachable, or too slow): callers apply their stated fallback. */
export class RedisUnavailable extends Error {
  override name = "RedisUnavailable";
}

export interface RedisStoreOptions {
  /** How long a command may take before it counts as failed. */
  commandTimeoutMs?: number;
  /** How long a connection attempt may take. */
  connectTimeoutMs?: number;
  /** The least time between two connection attempts while Redis is away. */
  reconnectIntervalMs?: number;
}

export class RedisStore implements RedisCommands {
  private client: RedisClient | undefined;
  private connecting: Promise<void> | undefined;
  private lastAttempt = 0;
  private closed = false;
  private readonly commandTimeoutMs: number;
  private readonly connectTimeoutMs: number;
  private readonly reconnectIntervalMs: number;

  constructor(
    private readonly url: string,
    options: RedisStoreOptions = {},
  ) {
    this.commandTimeoutMs = options.commandTimeoutMs ?? 500;
    this.connectTimeoutMs = options.connectTimeoutMs ?? 2000;
    this.reconnectIntervalMs = options.reconnectIntervalMs ?? 1000;
  }

  get connected(): boolean {
    return this.client?.connected === true;
  }

  /** One connection attempt, bounded by the connect timeout; resolves whether or not it succeeded. */
  connect(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.connecting ??= this.attempt().finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }

  async send(command: string, args: string[]): Promise<unknown> {
    const client = this.client;
    if (!client?.connected) {
      this.reconnectSoon();
      throw new RedisUnavailable("redis is not connected");
    }
    let timer: ReturnType<typeof setTimeout> | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new RedisUnavailable(`redis did not answer within ${this.commandTimeoutMs} ms`)),
        this.commandTimeoutMs,
      );
    });
    try {
      return await Promise.race([client.send(command, args), deadline]);
    } catch (error) {
      if (error instanceof RedisUnavailable) {
        // A connection that stopped answering is dropped, so the next attempt starts clean.
        this.drop(client);
        throw error;
      }
      // Connection errors become RedisUnavailable; a script error (a bug) stays what it is.
      if (!client.connected || isConnectionError(error)) {
        this.drop(client);
        throw new RedisUnavailable(`redis connection lost: ${messageOf(error)}`);
      }
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }

  async ping(): Promise<void> {
    if (!this.connected) await this.connect();
    const answer = await this.send("PING", []);
    if (answer !== "PONG") throw new Error(`unexpected PING answer: ${String(answer)}`);
  }

  close(): void {
    this.closed = true;
    this.client?.close();
    this.client = undefined;
  }

  private reconnectSoon(): void {
    if (this.connecting || Date.now() - this.lastAttempt < this.reconnectIntervalMs) return;
    void this.connect();
  }

  private async attempt(): Promise<void> {
    this.lastAttempt = Date.now();
    const client = new RedisClient(this.url, {
      autoReconnect: false,
      enableOfflineQueue: false,
      // Pipelined, a command waits in the client until the event loop's current task has ended (a
      // request's input scan, 0.2-0.3 ms, when the rate limiter's round trip overlaps it); unpipelined
      // it is written at once. strace of a send followed by 2 ms of work: its sendto came 2 ms later
      // with pipelining, at once without (tests/limits/redis-write.test.ts).
      enableAutoPipelining: false,
      connectionTimeout: this.connectTimeoutMs,
    });
    try {
      await client.connect();
    } catch {
      client.close();
      return;
    }
    if (this.closed) {
      client.close();
      return;
    }
    const previous = this.client;
    this.client = client;
    previous?.close();
  }

  private drop(client: RedisClient): void {
    if (this.client === client) this.client = undefined;
    client.close();
  }
}

const isConnectionError = (error: unknown) =>
  typeof error === "object" &&
  error !== null &&
  "code" in error &&
  typeof error.code === "string" &&
  error.code.startsWith("ERR_REDIS_CONNECTION");
