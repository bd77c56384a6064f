// Tells the orchestrator this worker is alive: one POST at start, then one every interval. A failed beat is
// logged and the next one tries again; it never stops the worker.
import type { Heartbeat } from "#contracts/orchestration/heartbeat.ts";
import type { HeartbeatConfig } from "./config.ts";
import type { Log } from "./log.ts";

/** The inventory heartbeat (contracts/orchestration/heartbeat.ts) with every field this worker knows. */
export type HeartbeatBody = Required<Omit<Heartbeat, "pool_id" | "state">> & { state: "READY" };

export function startHeartbeat(config: HeartbeatConfig, body: HeartbeatBody, log: Log): { stop(): void } {
  let inFlight: AbortController | undefined;
  const beat = async () => {
    if (inFlight) return; // the previous one is still waiting: do not pile them up
    inFlight = new AbortController();
    const timeout = setTimeout(() => inFlight?.abort(), Math.min(config.intervalMs, 5000));
    try {
      const res = await fetch(config.url, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${config.nodeToken}` },
        body: JSON.stringify(body),
        signal: inFlight.signal,
      });
      await res.body?.cancel();
      if (!res.ok) log.warn("heartbeat refused", { url: config.url, status: res.status });
    } catch (error) {
      log.warn("heartbeat failed", {
        url: config.url,
        error,
      });
    } finally {
      clearTimeout(timeout);
      inFlight = undefined;
    }
  };
  void beat();
  const timer = setInterval(() => void beat(), config.intervalMs);
  return {
    stop() {
      clearInterval(timer);
      inFlight?.abort();
    },
  };
}
