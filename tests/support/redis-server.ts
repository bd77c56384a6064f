// A throwaway redis-server (Debian's binary) on a spare port, which a test can stop, freeze and start
// again to play Redis failing under a running gateway. Nothing is written to disk.
import type { Subprocess } from "bun";
import { until } from "./wait.ts";

export interface TestRedis {
  url: string;
  port: number;
  /** Starts it again; a no-op while it runs. */
  start(): Promise<void>;
  /** Killed outright: connections drop at once. */
  stop(): Promise<void>;
  /** Stopped with SIGSTOP: connections stay open and nothing answers (a hung Redis). */
  freeze(): void;
  thaw(): void;
}

/** A port nothing listens on right now. */
export function sparePort(): number {
  const probe = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const port = probe.port;
  probe.stop(true);
  return port;
}

export async function startTestRedis(port = sparePort()): Promise<TestRedis> {
  let proc: Subprocess | undefined;
  const redis: TestRedis = {
    url: `redis://127.0.0.1:${port}`,
    port,
    async start() {
      if (proc) return;
      proc = Bun.spawn(
        ["redis-server", "--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
        { stdout: "ignore", stderr: "ignore", stdin: "ignore" },
      );
      await until(() => answers(port), { what: `redis-server to answer on port ${port}`, timeoutMs: 5000 });
    },
    async stop() {
      if (!proc) return;
      proc.kill("SIGCONT");
      proc.kill("SIGKILL");
      await proc.exited;
      proc = undefined;
    },
    freeze() {
      proc?.kill("SIGSTOP");
    },
    thaw() {
      proc?.kill("SIGCONT");
    },
  };
  await redis.start();
  return redis;
}

async function answers(port: number): Promise<boolean> {
  try {
    const socket = await Bun.connect({ hostname: "127.0.0.1", port, socket: { data() {} } });
    socket.end();
    return true;
  } catch {
    return false;
  }
}
