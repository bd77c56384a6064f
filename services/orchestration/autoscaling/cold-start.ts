// Requests to a deployment with no ready replica (scaled to zero, or its first replica starting) wait
// here together instead of failing: they are counted as queued in the load report (the demand the
// orchestrator scales from zero on), one poll per deployment looks for a ready replica, and all of them
// go on as soon as one is there. At most `maxQueued` wait per gateway process; a request beyond that,
// or still waiting at the time-out, is refused (503 deployment_unavailable with Retry-After).
import type { LoadReporter } from "./load-reporter.ts";

export interface ColdStartPolicy {
  timeoutMs: number;
  maxQueued: number;
}

export type ColdStartOutcome =
  | { ok: true; endpoints: string[]; waitedMs: number }
  | { ok: false; reason: "full" | "timeout" | "aborted"; retryAfterS: number; message: string };

interface Waiter {
  deadline: number;
  settle(outcome: ColdStartOutcome): void;
}

interface Queue {
  waiters: Set<Waiter>;
  /** The newest waiter's way of reading the deployment's ready replicas afresh. */
  refresh: () => Promise<string[]>;
  polling: boolean;
}

export class ColdStartGate {
  private readonly queues = new Map<string, Queue>();

  constructor(
    private readonly reporter: LoadReporter,
    private readonly pollMs = 200,
  ) {}

  wait(
    deploymentId: string,
    policy: ColdStartPolicy,
    refresh: () => Promise<string[]>,
    signal?: AbortSignal | undefined,
  ): Promise<ColdStartOutcome> {
    let queue = this.queues.get(deploymentId);
    if (!queue) {
      queue = { waiters: new Set(), refresh, polling: false };
      this.queues.set(deploymentId, queue);
    }
    queue.refresh = refresh;
    const started = Date.now();
    if (queue.waiters.size >= policy.maxQueued) {
      // The queue moves when a replica is ready or its oldest request times out.
      const oldest = Math.min(...[...queue.waiters].map((w) => w.deadline), started + policy.timeoutMs);
      return Promise.resolve({
        ok: false,
        reason: "full",
        retryAfterS: Math.max(1, Math.ceil((oldest - started) / 1000)),
        message: `the deployment is starting a replica and ${queue.waiters.size} requests already wait for it`,
      });
    }
    const { promise, resolve } = Promise.withResolvers<ColdStartOutcome>();
    const release = this.reporter.queue(deploymentId);
    const current = queue;
    const waiter: Waiter = {
      deadline: started + policy.timeoutMs,
      settle: (outcome) => {
        if (!current.waiters.delete(waiter)) return;
        release();
        signal?.removeEventListener("abort", onAbort);
        resolve(outcome.ok ? { ...outcome, waitedMs: Date.now() - started } : outcome);
      },
    };
    const onAbort = () =>
      waiter.settle({ ok: false, reason: "aborted", retryAfterS: 1, message: "the client went away" });
    signal?.addEventListener("abort", onAbort, { once: true });
    queue.waiters.add(waiter);
    if (!queue.polling) void this.poll(deploymentId, queue);
    return promise;
  }

  private async poll(deploymentId: string, queue: Queue): Promise<void> {
    queue.polling = true;
    try {
      while (queue.waiters.size > 0) {
        let endpoints: string[] = [];
        try {
          endpoints = await queue.refresh();
        } catch {
          // Unreadable for now: the waiters keep waiting until their deadline.
        }
        const now = Date.now();
        for (const waiter of [...queue.waiters]) {
          if (endpoints.length > 0) waiter.settle({ ok: true, endpoints, waitedMs: 0 });
          else if (now >= waiter.deadline)
            waiter.settle({
              ok: false,
              reason: "timeout",
              retryAfterS: 5,
              message: "no replica of the deployment was ready within its cold_start_timeout_s",
            });
        }
        if (queue.waiters.size > 0) await Bun.sleep(this.pollMs);
      }
    } finally {
      queue.polling = false;
      if (queue.waiters.size === 0 && this.queues.get(deploymentId) === queue)
        this.queues.delete(deploymentId);
    }
  }
}
