// `bun run admin:reset-password EMAIL`: a new password for a user, printed once (or ADMIN_PASSWORD), with
// their sessions revoked. Uses the same DATA_DIR / DATABASE_URL as `bun start`; on the embedded
// database the platform must be stopped first (one process at a time may open it).
import { join } from "node:path";
import { AppError } from "#core/errors.ts";
import { openDatabase } from "#db/client.ts";
import { migrate } from "#db/migrate.ts";
import { createAppContext } from "#server/compose.ts";
import { ConfigError, loadConfig } from "#server/config.ts";
import { lockDataDir } from "#server/data-dir-lock.ts";
import { createLogger } from "#server/log.ts";
import { resetPassword } from "#services/auth/reset-password.ts";

const email = process.argv[2];
if (!email || email.startsWith("-")) {
  process.stderr.write("usage: bun run admin:reset-password EMAIL   (ADMIN_PASSWORD=... to choose it)\n");
  process.exit(64); // EX_USAGE
}

try {
  const config = loadConfig();
  const unlock = config.databaseUrl ? () => {} : lockDataDir(config.dataDir);
  const database = await openDatabase({ url: config.databaseUrl, pgliteDir: join(config.dataDir, "pgdata") });
  try {
    await migrate(database.db);
    const app = createAppContext({ db: database.db, config, log: createLogger("silent") });
    const reset = await resetPassword(app, email, config.adminPassword);
    process.stdout.write(
      `Password of ${reset.email} reset; ${reset.sessionsRevoked} session(s) revoked.\n` +
        (reset.generatedPassword
          ? `New password (shown once, change it): ${reset.generatedPassword}\n`
          : "New password: the one given in ADMIN_PASSWORD.\n"),
    );
  } finally {
    await database.close();
    unlock();
  }
} catch (error) {
  if (error instanceof ConfigError) {
    process.stderr.write(`configuration error: ${error.message}\n`);
    process.exit(78);
  }
  if (error instanceof AppError) {
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  }
  throw error;
}
