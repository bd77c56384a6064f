// Starts the services this process runs (SERVICES) on one shared AppContext, and stops them in order.
// It opens what the process stands on (database, tracing, Redis); server/compose.ts builds the rest.

import { join } from "node:path";
import { RedisStore } from "#adapters/redis/client.ts";
import { openDatabase } from "#db/client.ts";
import { migrate } from "#db/migrate.ts";
import type { PlatformContext } from "#server/platform-context.ts";
import type { Logger } from "#services/context.ts";
import { bootstrap, createFirstAdmin } from "#services/orgs/bootstrap.ts";
import { composeApp } from "../compose.ts";
import type { Config } from "../config.ts";
import { lockDataDir } from "../data-dir-lock.ts";
import type { Companions, GatewayDescription } from "../http/gateway-description.ts";
import { startHttpGateway } from "../http/listen.ts";
import { bound, type Listener } from "../listener.ts";
import { type Tracing, tracingSettingsFromEnv } from "../telemetry.ts";

export type { Listener };

export interface Platform {
  app: PlatformContext;
  listeners: Listener[];
  portOf(name: Listener["name"]): number;
  stop(deadlineMs?: number): Promise<void>;
}

export interface StartResult extends Platform {
  generatedAdminPassword?: string;
  startupMs: number;
}

/** Starts the gateways of `gateways` that SERVICES names, each with what runs beside it. */
export async function startPlatform(
  config: Config,
  log: Logger,
  gateways: readonly GatewayDescription[],
): Promise<StartResult> {
  const started = performance.now();
  const unlock = config.databaseUrl ? () => {} : lockDataDir(config.dataDir);
  const database = await openDatabase({
    url: config.databaseUrl,
    pgliteDir: join(config.dataDir, "pgdata"),
    resilience: config.database,
    log,
  });
  const migrations = await migrate(database.db);
  log.info("database ready", { kind: database.kind, migrations_applied: migrations.applied });
  const tracingSettings = tracingSettingsFromEnv();
  const tracing: Tracing | undefined = tracingSettings
    ? (await import("../tracing-sdk.ts")).startTracing(tracingSettings)
    : undefined;
  if (tracingSettings) log.info("tracing on", { otlp_traces_url: tracingSettings.url });
  const redis = config.redisUrl ? await connectRedis(config.redisUrl, log) : undefined;
  const { app } = composeApp({ database, config, log, tracing, redis });
  const readinessChecks: Record<string, () => Promise<void>> = {};
  if (redis) readinessChecks.redis = () => redis.ping();

  // Not ready until the first start is over (the first administrator exists), so a script that waits
  // for /ready can sign in at once.
  let starting = true;
  readinessChecks.start = async () => {
    if (starting)
      throw new Error("starting: the first administrator is created once every listener is bound");
  };

  const listeners: Listener[] = [];
  const companions: Companions[] = [];
  const stopCompanions = () => Promise.all(companions.map((c) => c.stop()));
  let boot: Awaited<ReturnType<typeof createFirstAdmin>> = { adminCreated: false };
  let statistics: ReturnType<typeof setInterval> | undefined;
  try {
    // The administrator is created below, once every listener is bound (services/orgs/bootstrap.ts).
    await bootstrap(app, { admin: false });
    statistics = database.kind === "pglite" ? keepStatistics(app) : undefined;
    for (const gateway of gateways) {
      if (!config.services.has(gateway.name)) continue;
      const beside = gateway.companions?.(app);
      const http = await bound(gateway.portVariable, config.ports[gateway.name], () =>
        startHttpGateway(app, gateway, readinessChecks, beside?.registries ?? []),
      );
      listeners.push(http);
      if (!beside) continue;
      companions.push(beside);
      listeners.push(...(await beside.start(http.port)));
    }
    // Every listener is bound: only now can a generated password be printed for sure.
    boot = await createFirstAdmin(app);
    starting = false;
  } catch (error) {
    await stopCompanions();
    await Promise.all(listeners.map((l) => l.stop(0)));
    await app.inference?.close();
    redis?.close();
    if (statistics) clearInterval(statistics);
    await database.close();
    await tracing?.shutdown();
    unlock();
    throw error;
  }

  let stopping: Promise<void> | undefined;
  const platform: StartResult = {
    app,
    listeners,
    startupMs: Math.round(performance.now() - started),
    ...(boot.generatedPassword ? { generatedAdminPassword: boot.generatedPassword } : {}),
    portOf(name) {
      const listener = listeners.find((l) => l.name === name);
      if (!listener) throw new Error(`${name} is not running in this process`);
      return listener.port;
    },
    stop(deadlineMs = 10_000) {
      stopping ??= (async () => {
        // Workers keep running: the next start adopts them (or stops them if no longer wanted).
        await stopCompanions();
        await Promise.all(listeners.map((l) => l.stop(deadlineMs)));
        // Inference logs and usage still queued are written before the database closes.
        await app.inference?.close();
        // API-key uses noted in memory since the last flush.
        await app.lastUsed.flush().catch((error) => log.warn("last_used_at not written", { error }));
        redis?.close();
        if (statistics) clearInterval(statistics);
        await database.close();
        // Spans still queued are sent before the process ends.
        await tracing?.shutdown().catch((error) => log.warn("spans not sent", { error: String(error) }));
        unlock();
      })();
      return stopping;
    },
  };
  return platform;
}

/**
 * One attempt of at most two seconds: an unreachable Redis delays no listener longer than that, and
 * the store keeps trying in the background while requests follow their on_store_error.
 */
async function connectRedis(url: string, log: Logger): Promise<RedisStore> {
  const store = new RedisStore(url);
  const waitStarted = performance.now();
  await store.connect();
  if (!store.connected) {
    log.warn("redis unreachable at start; /ready reports it until it answers", {
      waited_ms: Math.round(performance.now() - waitStarted),
    });
  }
  return store;
}

/**
 * Embedded PGlite has no autovacuum, so nothing refreshes the planner's statistics: a table grown from
 * empty to 100,000 audit records would still be planned as empty (a filtered audit page took 80 ms
 * instead of 8 in bench/dashboard-render.ts). ANALYZE once at start and every hour does it.
 */
function keepStatistics(app: PlatformContext): ReturnType<typeof setInterval> {
  const analyze = () =>
    app.db.execute("analyze").catch((error: unknown) => app.log.warn("analyze failed", { error }));
  void analyze();
  const timer = setInterval(analyze, 3_600_000);
  timer.unref();
  return timer;
}
