// Everything the inference gateway keeps for the life of its process: the context cache, the limiter,
// the replica balancer, and the batchers that carry logs and usage off the hot path.

import type { Counter } from "prom-client";
import type { RedisCommands } from "#adapters/redis/client.ts";
import { RedisLimiter } from "#adapters/redis/gcra.ts";
import { RedisPrefixStore } from "#adapters/redis/prefix-store.ts";
import { RedisReservations, RedisReservationsWithFallback } from "#adapters/redis/reservations.ts";
import { RedisResponseCacheStore } from "#adapters/redis/response-cache.ts";
import { InFlightBalancer } from "#adapters/upstream/balancer.ts";
import { probeReplica } from "#adapters/upstream/health-probe.ts";
import { PrefixTable, type PrefixTableOptions } from "#adapters/upstream/prefix-table.ts";
import {
  defaultReplicaHealth,
  ReplicaHealth,
  type ReplicaHealthOptions,
} from "#adapters/upstream/replica-health.ts";
import type { AppError } from "#core/errors.ts";
import type { GuardrailsPolicyConfig } from "#core/policies.ts";
import { InProcessLoadStore, type LoadStore } from "#core/ports/load-store.ts";
import { InProcessLimiter, type RateLimiter, StoreFailureGuard } from "#core/ports/rate-limiter.ts";
import { InProcessReservations, type ReservationStore } from "#core/ports/reservations.ts";
import type { Logger } from "../context.ts";
import { counter } from "../observability/counters.ts";
import { throttledWarning } from "../observability/throttled-log.ts";
import { ColdStartGate } from "../orchestration/autoscaling/cold-start.ts";
import { LoadReporter } from "../orchestration/autoscaling/load-reporter.ts";
import type { Tracer } from "../telemetry/tracing.ts";
import { Batcher, registerBatchCounters } from "./batcher.ts";
import { type RequestGuard, requestGuard } from "./guard.ts";
import { InputScanCache } from "./input-scan-cache.ts";
import { InferenceMetrics, replicaLabel } from "./metrics.ts";
import type {
  BudgetStanding,
  FiltrationPort,
  InferenceLogEntry,
  QuotaStanding,
  Resolution,
  UsageRecord,
} from "./port.ts";
import { ResponseCache } from "./response-cache/cache.ts";
import { MemoryResponseCacheStore, type ResponseCacheStore } from "./response-cache/store.ts";
import { RevalidatingCache } from "./revalidating-cache.ts";
import { spill, takeSpilled } from "./spill.ts";
import { UpstreamClient } from "./upstream-client.ts";

export interface InferenceRuntime {
  port: FiltrationPort;
  /** What this process reports of its load per deployment (services/autoscaling). */
  load: LoadReporter;
  /** Where requests wait for a replica of a deployment scaled to zero. */
  coldStart: ColdStartGate;
  limiter: RateLimiter;
  balancer: InFlightBalancer;
  /** Every call to a replica: sends, retries, traces and measures it (upstream-client.ts). */
  upstream: UpstreamClient;
  resolve(apiKey: string, model: string): Promise<Resolution>;
  /** The organization's use today, as the database counts it: a standing at most a second old. */
  quotaStanding(orgId: string, deploymentId: string): Promise<QuotaStanding>;
  /** The spend of the organization and of the key (or the playground) under their budgets. Same age. */
  budgetStanding(orgId: string, apiKeyId: string | undefined): Promise<BudgetStanding>;
  /**
   * Quota and budget counters: each call reserves its maximum at admission and settles at its end
   * (core/ports/reservations.ts); shared through Redis with REDIS_URL.
   */
  reservations: ReservationStore;
  logs: Batcher<InferenceLogEntry>;
  usage: Batcher<UsageRecord>;
  guard(policy: GuardrailsPolicyConfig): RequestGuard | undefined;
  timeouts: { connectMs: number; firstByteMs: number; firstByteStreamMs: number };
  statusOf(error: AppError): number;
  /** The LLM series this process's inference gateway shows on /metrics. */
  metrics: InferenceMetrics;
  /**
   * A hosted upstream refused the platform's credential (401/403): counted per deployment
   * (llm_upstream_auth_failures_total) and logged, at most once per 30 s per deployment.
   */
  upstreamAuthFailed(deployment: { id: string; name: string }, status: number): void;
  /** Absent: no spans, nothing spent on them. */
  tracing: InferenceTracing | undefined;
  /** Answers kept by the cache policy (response-cache/), in Redis, the database or this process. */
  responseCache: ResponseCache;
  close(): Promise<void>;
}

// The inference runtime adds itself to what every service receives, so that services/context.ts (which
// the runtime's own parts import) does not import it back.

/**
 * What the inference gateway's routes receive beside the RequestContext (server/platform-context.ts):
 * the runtime when this process runs the gateway; inferenceRuntimeOf below says when it does not.
 */
export interface WithInference {
  readonly inference?: InferenceRuntime | undefined;
}

export interface InferenceTracing {
  tracer: Tracer;
  /** Prompts and answers on spans, only when an operator opted in. */
  captureContent: boolean;
}

export interface RuntimeOptions {
  port: FiltrationPort;
  redis: RedisCommands | undefined;
  log: Logger;
  statusOf(error: AppError): number;
  tracing?: InferenceTracing | undefined;
  /** Passive health of replicas (REPLICA_FAILURE_THRESHOLD, REPLICA_PROBE_INTERVAL_MS…). */
  replicaHealth?: Partial<ReplicaHealthSettings> | undefined;
  /** The shared load store (default: a memory of its own, which no autoscaler reads). */
  load?: LoadStore | undefined;
  loadReportIntervalMs?: number | undefined;
  /** A request waits for a replica: the orchestrator of this process, if any, looks at once. */
  onDemand?: (() => void) | undefined;
  /**
   * Where logs and usage still unsent at shutdown are kept (DATA_DIR/spill), to be queued again at the
   * next start. Unset: they are reported as lost.
   */
  spillDir?: string | undefined;
  /** How long the receiver may fail before queued logs and usage go to `spillDir` (default 10 s). */
  spillAfterMs?: number;
  /** How long close() keeps trying to send before it spills (default 3 s: a stop ends within 10 s). */
  closeDeadlineMs?: number;
  /**
   * Where the response cache keeps answers; default: Redis when `redis` is set, else this process's
   * memory (server/compose.ts passes the database's store when there is no Redis).
   */
  responseCacheStore?: ResponseCacheStore | undefined;
  /**
   * The clock (ms since the epoch) of the response cache and of the context, quota and budget caches:
   * tests move it past a TTL or a cached context's age instead of waiting.
   */
  now?: (() => number) | undefined;
  /** Bounds of the prefix-routing table (shared through `redis` when it is set). */
  prefixTable?: Pick<PrefixTableOptions, "maxEntries" | "ttlMs"> | undefined;
}

export type ReplicaHealthSettings = Pick<
  ReplicaHealthOptions,
  "failureThreshold" | "probeBaseMs" | "probeMaxMs"
>;

export function createInferenceRuntime(options: RuntimeOptions): InferenceRuntime {
  const { port, log } = options;
  const lookups = filtrationLookups(port, options.now);
  const { logs, usage } = recordBatchers(options);
  const metrics = new InferenceMetrics();
  // A conversation's earlier messages come again with every turn: their input scans are kept.
  const inputScans = new InputScanCache();
  const timeouts = { connectMs: 3000, firstByteMs: 300_000, firstByteStreamMs: 60_000 };
  const replicas = replicaRouting(options, metrics, timeouts.connectMs);
  registerBatchCounters(metrics.registry, { logs, usage });
  const load = new LoadReporter({
    store: options.load ?? new InProcessLoadStore(),
    log,
    intervalMs: options.loadReportIntervalMs,
    onDemand: options.onDemand,
  });
  const balancer = new InFlightBalancer(replicas.health, replicas.prefixes);
  const upstream = new UpstreamClient(balancer, metrics, () => runtime.tracing?.tracer);
  const runtime: InferenceRuntime = {
    port,
    load,
    coldStart: new ColdStartGate(load),
    limiter: options.redis ? guardedRedisLimiter(options.redis, log) : new InProcessLimiter(),
    balancer,
    upstream,
    ...lookups,
    reservations: options.redis ? guardedRedisReservations(options.redis, log) : new InProcessReservations(),
    logs,
    usage,
    guard: (policy) => requestGuard(policy, inputScans),
    timeouts,
    statusOf: options.statusOf,
    metrics,
    upstreamAuthFailed: authFailureCounter(metrics, log),
    tracing: options.tracing,
    responseCache: new ResponseCache(responseCacheStoreOf(options), metrics, options.now, upstream),
    async close() {
      replicas.health.close();
      const deadlineMs = options.closeDeadlineMs ?? 3000;
      await Promise.all([
        closeAndSpill(logs, "logs", deadlineMs, options.spillDir, log),
        closeAndSpill(usage, "usage", deadlineMs, options.spillDir, log),
        load.close(),
      ]);
    },
  };
  return runtime;
}

/**
 * What the gateway asks the filtration side per request, cached: a key's context (revoked keys and
 * stopped deployments are seen within a second; an unreachable filtration side leaves known contexts
 * serving for 30 s), and the organization's quota and budget standings, read at most once a second
 * rather than per request: usage reaches the counters in batches a second apart anyway, so the quota
 * was never finer than that.
 */
function filtrationLookups(
  port: FiltrationPort,
  now: (() => number) | undefined,
): Pick<InferenceRuntime, "resolve" | "quotaStanding" | "budgetStanding"> {
  const settings = { refreshAfterMs: 500, maxAgeMs: 1000, staleForMs: 30_000, maxEntries: 100_000, now };
  const split = (key: string): [string, string] => {
    const at = key.indexOf("\n");
    return [key.slice(0, at), key.slice(at + 1)];
  };
  const contexts = new RevalidatingCache<Resolution>((key) => port.resolve(...split(key)), settings);
  const standings = new RevalidatingCache<QuotaStanding>((key) => {
    const [orgId, deploymentId] = split(key);
    return port.checkQuota(orgId, deploymentId, 0);
  }, settings);
  const budgets = new RevalidatingCache<BudgetStanding>((key) => {
    const [orgId, apiKeyId] = split(key);
    return port.checkBudget(orgId, apiKeyId || undefined);
  }, settings);
  return {
    resolve: (apiKey, model) => contexts.get(`${apiKey}\n${model}`),
    quotaStanding: (orgId, deploymentId) => standings.get(`${orgId}\n${deploymentId}`),
    budgetStanding: (orgId, apiKeyId) => budgets.get(`${orgId}\n${apiKeyId ?? ""}`),
  };
}

/** The batchers that carry logs and usage off the hot path; what an earlier stop spilled goes first. */
function recordBatchers(options: RuntimeOptions): {
  logs: Batcher<InferenceLogEntry>;
  usage: Batcher<UsageRecord>;
} {
  const { port, log, spillDir } = options;
  const batcher = <T>(what: string, sink: (batch: T[]) => Promise<void>, kind: "logs" | "usage") =>
    new Batcher<T>({
      // The database (or the filtration side) away for longer than this: queued records go to
      // DATA_DIR/spill and come back once a batch is written again.
      spill: spillDir
        ? {
            afterMs: options.spillAfterMs ?? 10_000,
            put: (records) => {
              spill(spillDir, kind, records);
            },
            take: () => takeSpilled<T>(spillDir, kind),
          }
        : undefined,
      sink,
      maxBatch: 500,
      intervalMs: 1000,
      maxQueued: 100_000,
      retry: { baseMs: 250, maxMs: 30_000 },
      onError: (error, queued, retryInMs) =>
        log.warn(`${what} not written yet; will retry`, { error, queued, retry_in_ms: retryInMs }),
      onRefused: (error, records) =>
        log.error(`${what} refused by the filtration service; batch dropped`, { error, records }),
    });
  const logs = batcher<InferenceLogEntry>("inference logs", (batch) => port.writeLogs(batch), "logs");
  const usage = batcher<UsageRecord>("usage records", (batch) => port.trackUsage(batch), "usage");
  if (spillDir) {
    // What an earlier stop could not send goes out first.
    const [oldLogs, oldUsage] = [
      takeSpilled<InferenceLogEntry>(spillDir, "logs"),
      takeSpilled<UsageRecord>(spillDir, "usage"),
    ];
    for (const entry of oldLogs) logs.add(entry);
    for (const record of oldUsage) usage.add(record);
    if (oldLogs.length + oldUsage.length > 0)
      log.info("queued again what the last stop spilled", { logs: oldLogs.length, usage: oldUsage.length });
  }
  return { logs, usage };
}

/** The replicas' passive health and the prefix-routing table the balancer chooses by. */
function replicaRouting(
  options: RuntimeOptions,
  metrics: InferenceMetrics,
  connectMs: number,
): { health: ReplicaHealth; prefixes: PrefixTable } {
  const { log } = options;
  const prefixes = new PrefixTable({
    ...options.prefixTable,
    shared: options.redis
      ? new RedisPrefixStore(
          options.redis,
          storeFailureWarning(
            log,
            "prefix-routing table in Redis unreachable: routing by this process's own table",
          ),
        )
      : undefined,
  });
  const health = new ReplicaHealth({
    ...defaultReplicaHealth,
    ...options.replicaHealth,
    probe: (endpoint) => probeReplica(endpoint, connectMs),
    onChange(endpoint, out) {
      const replica = { replica: replicaLabel(endpoint) };
      if (out) {
        metrics.replicasOut.set(replica, 1);
        log.warn("replica taken out of rotation after failing in a row; probing it", { endpoint });
      } else {
        metrics.replicasOut.remove(replica);
        log.info("replica answers again; back in rotation", { endpoint });
      }
    },
    onForget(endpoint) {
      metrics.replicasOut.remove({ replica: replicaLabel(endpoint) });
      prefixes.forget(endpoint);
    },
  });
  return { health, prefixes };
}

/**
 * Where the response cache keeps answers: the store given, else Redis when `redis` is set, else this
 * process's memory.
 */
function responseCacheStoreOf(options: RuntimeOptions): ResponseCacheStore {
  if (options.responseCacheStore) return options.responseCacheStore;
  if (!options.redis) return new MemoryResponseCacheStore(options.now);
  return new RedisResponseCacheStore(
    options.redis,
    storeFailureWarning(options.log, "response cache store unreachable: requests go to the model"),
  );
}

/** A hosted upstream refusing the platform's credential: counted, and warned of once per 30 s per deployment. */
function authFailureCounter(metrics: InferenceMetrics, log: Logger): InferenceRuntime["upstreamAuthFailed"] {
  const warnings = new Map<string, ReturnType<typeof throttledWarning>>();
  return (deployment, status) => {
    metrics.upstreamAuthFailures.inc({ deployment: deployment.name, deployment_id: deployment.id });
    let warn = warnings.get(deployment.id);
    if (!warn) {
      warn = throttledWarning(
        log,
        "a hosted upstream refused the platform's credential; check the deployment's configuration.credential",
      );
      warnings.set(deployment.id, warn);
    }
    warn({ deployment: deployment.name, deployment_id: deployment.id, status });
  };
}

/** At shutdown: what a batcher could not send in time is spilled for the next start, or reported lost. */
async function closeAndSpill<T>(
  batcher: Batcher<T>,
  kind: "logs" | "usage",
  deadlineMs: number,
  spillDir: string | undefined,
  log: Logger,
): Promise<void> {
  const left = await batcher.close(deadlineMs);
  if (left.length === 0) return;
  try {
    const path = spillDir ? spill(spillDir, kind, left) : undefined;
    if (path)
      log.warn(`${kind} not sent before stopping; kept for the next start`, { records: left.length, path });
    else log.error(`${kind} not sent before stopping; lost`, { records: left.length });
  } catch (error) {
    log.error(`${kind} not sent before stopping and not spilled; lost`, { records: left.length, error });
  }
}

/** What a store's failure says, for a warning. */
const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** What a Redis-backed store does when Redis fails it: a throttled warning, and a count when `errors` is given. */
function storeFailureWarning(
  log: Logger,
  message: string,
  errors?: Counter<"store">,
): (error: unknown) => void {
  const warn = throttledWarning(log, message);
  return (error) => {
    errors?.inc({ store: "redis" });
    warn({ error: messageOf(error) });
  };
}

export const rateLimitStoreErrors = counter(
  "rate_limit_store_errors_total",
  "Rate-limit decisions and corrections the counter store (Redis) failed to answer.",
  ["store"],
);

function guardedRedisLimiter(redis: RedisCommands, log: Logger): RateLimiter {
  return new StoreFailureGuard(
    new RedisLimiter(redis),
    storeFailureWarning(
      log,
      "rate-limit store unreachable: requests follow their policy's on_store_error (default open)",
      rateLimitStoreErrors,
    ),
  );
}

export const reservationStoreErrors = counter(
  "reservation_store_errors_total",
  "Quota and budget reservations and settlements the counter store (Redis) failed to answer.",
  ["store"],
);

function guardedRedisReservations(redis: RedisCommands, log: Logger): ReservationStore {
  return new RedisReservationsWithFallback(
    new RedisReservations(redis),
    storeFailureWarning(
      log,
      "reservation store unreachable: quotas and budgets are held by this process's counters meanwhile",
      reservationStoreErrors,
    ),
  );
}

export function inferenceRuntimeOf(ctx: WithInference): InferenceRuntime {
  if (!ctx.inference) throw new Error("the inference runtime is not started in this process");
  return ctx.inference;
}
