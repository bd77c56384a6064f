// The load the inference gateways see per deployment, added up across gateway processes through a
// shared store (Redis when REDIS_URL is set, else PostgreSQL when DATABASE_URL is set, else this
// process's memory): each process replaces its own report every interval, with a time to live, so a
// process that stops reporting stops counting once its last report expires.

export interface DeploymentLoad {
  /** Requests admitted and not finished (streams until their last byte). */
  inFlight: number;
  /** Requests waiting for a replica (scale from zero). */
  queued: number;
  /** Completion tokens per second over the last report interval. */
  tokensPerSecond: number;
}

export const idle: DeploymentLoad = { inFlight: 0, queued: 0, tokensPerSecond: 0 };

export interface LoadStore {
  readonly kind: "redis" | "database" | "in-process";
  /** This reporter's figures now, per deployment; they count until `ttlMs` from now unless replaced. */
  report(reporterId: string, loads: ReadonlyMap<string, DeploymentLoad>, ttlMs: number): Promise<void>;
  /** The sum over every live report, per deployment asked for (absent: nobody reports load for it). */
  sum(deploymentIds: readonly string[]): Promise<Map<string, DeploymentLoad>>;
}

export function add(a: DeploymentLoad, b: DeploymentLoad): DeploymentLoad {
  return {
    inFlight: a.inFlight + b.inFlight,
    queued: a.queued + b.queued,
    tokensPerSecond: a.tokensPerSecond + b.tokensPerSecond,
  };
}

/** One process's store. Deployment ids are random UUIDs, so one per process serves every platform in it. */
export class InProcessLoadStore implements LoadStore {
  readonly kind = "in-process" as const;
  private readonly reports = new Map<string, { expiresAt: number; loads: Map<string, DeploymentLoad> }>();

  async report(reporterId: string, loads: ReadonlyMap<string, DeploymentLoad>, ttlMs: number) {
    const current = this.reports.get(reporterId);
    const merged = new Map(current && current.expiresAt > Date.now() ? current.loads : []);
    for (const [id, load] of loads) merged.set(id, load);
    this.reports.set(reporterId, { expiresAt: Date.now() + ttlMs, loads: merged });
  }

  async sum(deploymentIds: readonly string[]) {
    const now = Date.now();
    const wanted = new Set(deploymentIds);
    const sums = new Map<string, DeploymentLoad>();
    for (const [reporter, { expiresAt, loads }] of this.reports) {
      if (expiresAt <= now) {
        this.reports.delete(reporter);
        continue;
      }
      for (const [id, load] of loads) if (wanted.has(id)) sums.set(id, add(sums.get(id) ?? idle, load));
    }
    return sums;
  }
}
