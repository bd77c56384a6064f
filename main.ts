// `bun start`: every service of SERVICES in this one process, on the configured ports. The entry at the
// top of the tree, above server/ and routes/: it hands the gateways (routes/gateways.ts) to the platform.

import { guardPostgresProcess } from "#db/resilient-postgres.ts";
import { gateways } from "#routes/gateways.ts";
import { ConfigError, loadConfig } from "#server/config.ts";
import { createLogger } from "#server/log.ts";
import { startPlatform } from "#server/start/platform.ts";

const shutdownDeadlineMs = 10_000;

let config: ReturnType<typeof loadConfig>;
try {
  config = loadConfig();
} catch (error) {
  if (error instanceof ConfigError) {
    process.stderr.write(`configuration error: ${error.message}\n`);
    process.exit(78); // EX_CONFIG
  }
  throw error;
}

const log = createLogger(config.logLevel);
// A lost PostgreSQL connection must not end the process (db/resilient-postgres.ts).
guardPostgresProcess(log);
let platform: Awaited<ReturnType<typeof startPlatform>>;
try {
  platform = await startPlatform(config, log, gateways);
} catch (error) {
  const message =
    error instanceof ConfigError ? `configuration error: ${error.message}` : `start failed: ${String(error)}`;
  process.stderr.write(`${message}\n`);
  process.exit(error instanceof ConfigError ? 78 : 1);
}

if (platform.generatedAdminPassword) {
  // Printed once, on the start that created the administrator; it is not stored anywhere in clear.
  process.stdout.write(
    `\nFirst administrator created: ${config.adminEmail}\nPassword (shown once, change it): ${platform.generatedAdminPassword}\n\n`,
  );
}
log.info("ready", {
  startup_ms: platform.startupMs,
  listeners: Object.fromEntries(platform.listeners.map((l) => [l.name, l.port])),
});

let signalled = false;
for (const signal of ["SIGTERM", "SIGINT"] as const) {
  process.on(signal, async () => {
    if (signalled) return;
    signalled = true;
    log.info("shutting down", { signal, deadline_ms: shutdownDeadlineMs });
    try {
      await platform.stop(shutdownDeadlineMs);
      log.info("stopped");
      process.exit(0);
    } catch (error) {
      log.error("shutdown failed", { error });
      process.exit(1);
    }
  });
}
