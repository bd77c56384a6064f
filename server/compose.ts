// The composition root: every long-lived object of a process is built here, once, and handed to
// what needs it on the AppContext. Nothing is looked up later by key or patched in after the fact:
// the orchestration runtime (providers, log hub, model downloads, the reconciler's wake-up, the
// load store), the knowledge runtime (vector ranking, embedding runs), the API-key use tracker,
// and the inference runtime (caches, limiter, balancer, batchers) when this process runs the
// inference gateway. server/start/platform.ts opens what these
// stand on (database, Redis, tracing), composes, then binds the listeners; tests compose the same
// way through tests/support/app.ts.

import { join } from "node:path";
import type { RedisStore } from "#adapters/redis/client.ts";
import { redisLoadStore } from "#adapters/redis/load-reports.ts";
import { messageOf } from "#core/error-chain.ts";
import { InProcessLoadStore, type LoadStore } from "#core/ports/load-store.ts";
import type { Database } from "#db/client.ts";
import { httpFiltration } from "#server/filtration-http-port.ts";
import type { PlatformContext } from "#server/platform-context.ts";
import { LastUsedTracker } from "#services/api-keys/last-used.ts";
import type { AppContext, Logger } from "#services/context.ts";
import type { FiltrationPort } from "#services/inference/port.ts";
import { DatabaseResponseCacheStore } from "#services/inference/response-cache/database-store.ts";
import { createInferenceRuntime, type InferenceRuntime } from "#services/inference/runtime.ts";
import { inProcessFiltration } from "#services/inference-context/in-process-port.ts";
import { createKnowledgeRuntime } from "#services/knowledge-base/runtime.ts";
import { throttledWarning } from "#services/observability/throttled-log.ts";
import { databaseLoadStore } from "#services/orchestration/autoscaling/database-load.ts";
import { createOrchestrationRuntime } from "#services/orchestration/runtime.ts";
import type { Config } from "./config.ts";
import { httpStatusOf } from "./error-table.ts";
import type { Tracing } from "./telemetry.ts";

export interface AppParts {
  db: Database;
  config: Config;
  log: Logger;
  tracer?: AppContext["tracer"];
  /** Where load reports meet the autoscaler (default: this process's memory). */
  load?: LoadStore;
}

/** What every service receives, without the inference runtime (scripts, tests, the filtration side). */
export function createAppContext({ db, config, log, tracer, load }: AppParts): PlatformContext {
  return {
    db,
    config,
    log,
    clock: () => new Date(),
    tracer,
    lastUsed: new LastUsedTracker(db, log),
    orchestration: createOrchestrationRuntime({ db, config }, load),
    knowledge: createKnowledgeRuntime(db, log),
  };
}

export interface Infrastructure {
  database: { db: Database; kind: "pglite" | "postgres" };
  config: Config;
  log: Logger;
  tracing: Tracing | undefined;
  redis: RedisStore | undefined;
}

export interface Composition {
  /** Carries the orchestration runtime, whose load store is where the gateways' reports meet the autoscaler. */
  app: PlatformContext;
}

/** The whole process: the AppContext, with the inference runtime when this process runs inference. */
export function composeApp(infra: Infrastructure): Composition {
  const { database, config, log, tracing, redis } = infra;
  const load = loadStoreOf(infra);
  const base = createAppContext({ db: database.db, config, log, tracer: tracing?.tracer, load });
  if (!config.services.has("inference")) return { app: base };
  const warnCacheStore = throttledWarning(log, "response cache table unreachable: requests go to the model");
  const inference: InferenceRuntime = createInferenceRuntime({
    // The filtration side sees the context without the inference runtime: it needs none.
    port: filtrationPortOf(infra, base),
    redis,
    log,
    statusOf: httpStatusOf,
    tracing,
    replicaHealth: config.replicaHealth,
    load,
    onDemand: () => base.orchestration.kick(),
    spillDir: join(config.dataDir, "spill"),
    // Answers kept by cache policies: in Redis when there is one (the runtime's default), else here.
    responseCacheStore: redis
      ? undefined
      : new DatabaseResponseCacheStore(database.db, Date.now, (error) =>
          warnCacheStore({ error: messageOf(error) ?? String(error) }),
        ),
  });
  return { app: withInference(base, inference) };
}

function loadStoreOf({ redis, config, database }: Infrastructure): LoadStore {
  if (redis) return redisLoadStore(redis);
  return config.databaseUrl ? databaseLoadStore(database.db) : new InProcessLoadStore();
}

/**
 * Steps the filtration side owns are plain calls on this process's database when it holds the
 * platform's data: filtration runs here, or every process shares one PostgreSQL. Only an inference
 * gateway on a database of its own (embedded, apart) goes through FILTRATION_URL's HTTP.
 * Apart on the shared PostgreSQL, HTTP cost both sides CPU on every request (the prompt template
 * was fetched and applied by filtration per request: filtration spent 966 µs and the inference process
 * 922 µs a request, against 548 µs for the single process; bench/gateway.ts --apart) and failed
 * those requests whenever filtration was down; reads stay behind the runtime's caches either way.
 */
function filtrationPortOf({ config, database }: Infrastructure, app: PlatformContext): FiltrationPort {
  if (config.services.has("filtration") || database.kind === "postgres") return inProcessFiltration(app);
  return httpFiltration({ baseUrl: config.filtrationUrl, internalApiKey: config.internalApiKey });
}

/** The same context with an inference runtime (tests compose their own). */
export function withInference(app: PlatformContext, inference: InferenceRuntime): PlatformContext {
  return { ...app, inference };
}
