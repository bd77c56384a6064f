// The llama.cpp worker process: `bun adapters/engines/llama.cpp/worker.ts`, configured by environment
// (README.md). Its stdout carries exactly one line for the parent: {"event":"ready","port":N} once it serves,
// or {"event":"fatal","reason":"..."} before it exits with code 2. Everything else goes to stderr.
import type { Server } from "bun";
import { FatalError, readConfig, type WorkerConfig } from "./config.ts";
import { createEmbedder } from "./embeddings.ts";
import { startHeartbeat } from "./heartbeat.ts";
import { createLog, type Log } from "./log.ts";
import { TokenDescriber } from "./logprobs.ts";
import { type LoadedModel, loadModel } from "./model.ts";
import { serverError } from "./openai-shapes.ts";
import { SequencePool } from "./sequences.ts";
import { createRoutes } from "./server.ts";

/** How long in-flight generations get to stop after SIGTERM before the process exits anyway. */
const SHUTDOWN_GRACE_MS = 3000;

function announce(line: { event: "ready"; port: number } | { event: "fatal"; reason: string }): void {
  process.stdout.write(`${JSON.stringify(line)}\n`);
}

function fatal(reason: string): never {
  announce({ event: "fatal", reason });
  process.exit(2);
}

async function main(): Promise<void> {
  let config: WorkerConfig;
  try {
    config = readConfig(process.env);
  } catch (error) {
    return fatal(error instanceof Error ? error.message : String(error));
  }
  const log = createLog(config.logLevel === "silent" ? "silent" : config.logLevel, {
    component: "llama.cpp-worker",
  });

  // Until the server runs there is nothing to drain: a stop request during loading just ends the process.
  const exitWhileLoading = () => process.exit(0);
  process.once("SIGTERM", exitWhileLoading);
  process.once("SIGINT", exitWhileLoading);
  const loadWatchdog = setTimeout(
    () => fatal(`the model did not load within ${config.loadTimeoutMs} ms: ${config.modelPath}`),
    config.loadTimeoutMs,
  );
  let loaded: LoadedModel;
  try {
    loaded = await loadModel(config, log);
  } catch (error) {
    const reason = error instanceof FatalError ? error.message : `cannot load the model: ${String(error)}`;
    return fatal(reason);
  } finally {
    clearTimeout(loadWatchdog);
  }

  const shutdown = new AbortController();
  const pool = new SequencePool(loaded.sequences, {
    tokens: (sequence) => sequence.contextTokens,
    clear: (sequence) => sequence.clearHistory(),
  });
  const routes = createRoutes({
    modelName: config.modelName,
    renderer: {
      llama: loaded.llama,
      model: loaded.model,
      tokens: new TokenDescriber(loaded.model),
      chatWrapper: loaded.chatWrapper,
      contextSize: loaded.contextSize,
    },
    pool,
    lockstep: loaded.lockstep,
    shutdown: shutdown.signal,
    log,
    embedder: createEmbedder(loaded.model, { contextSize: loaded.contextSize, threads: config.threads }),
  });
  let server: Server<undefined>;
  try {
    server = Bun.serve({
      hostname: config.host,
      port: config.port,
      // FIELD-NOTES: Bun closes a connection idle for 10 s, which cuts an SSE stream waiting for its turn.
      idleTimeout: 0,
      development: false,
      fetch: routes.fetch,
      error(error) {
        log.error("unhandled error in a request", { error: error.message });
        return Response.json(serverError("internal error", "internal_error"), { status: 500 });
      },
    });
  } catch (error) {
    await loaded.dispose().catch(() => {});
    return fatal(
      `cannot listen on ${config.host}:${config.port}: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  const port = server.port ?? config.port;

  const heartbeat = config.heartbeat
    ? startHeartbeat(
        config.heartbeat,
        {
          provider: config.heartbeat.provider,
          provider_instance_id: config.heartbeat.providerInstanceId,
          gpu_allocated: 0,
          vcpu_allocated: config.threads,
          ram_gb_allocated: loaded.ramGb,
          health_score: 100,
          state: "READY",
          expose_url: config.exposeUrl ?? `http://${urlHost(config.host)}:${port}`,
        },
        log,
      )
    : undefined;

  process.off("SIGTERM", exitWhileLoading);
  process.off("SIGINT", exitWhileLoading);
  installShutdown({ server, pool, routes, loaded, shutdown, heartbeat, log });
  log.info("ready", { port, model: config.modelName });
  announce({ event: "ready", port });
}

function installShutdown(parts: {
  server: Server<undefined>;
  pool: { close(): void };
  routes: { drained(): Promise<void> };
  loaded: LoadedModel;
  shutdown: AbortController;
  heartbeat: { stop(): void } | undefined;
  log: Log;
}): void {
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    parts.log.info("shutting down", { signal });
    // A generation that ignores the abort must not keep the process: exit anyway after the grace period.
    setTimeout(() => process.exit(0), SHUTDOWN_GRACE_MS + 1000).unref();
    parts.heartbeat?.stop();
    // Stop listening; the connections already open stay until their answers end.
    void parts.server.stop(false);
    parts.pool.close();
    parts.shutdown.abort(new DOMException("the worker is shutting down", "AbortError"));
    await Promise.race([parts.routes.drained(), Bun.sleep(SHUTDOWN_GRACE_MS)]);
    await Promise.race([parts.loaded.dispose().catch(() => {}), Bun.sleep(1000)]);
    process.exit(0);
  };
  process.on("SIGTERM", () => void stop("SIGTERM"));
  process.on("SIGINT", () => void stop("SIGINT"));
}

/** An IPv6 literal needs brackets in a URL. */
function urlHost(host: string): string {
  return host.includes(":") ? `[${host}]` : host;
}

await main();
