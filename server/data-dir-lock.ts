// Embedded PGlite is one process's database: a second process opening the same files would corrupt
// them. The lock file turns that mistake into a clear message at start.
import { closeSync, openSync, readFileSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";
import { propertyOf } from "#core/error-chain.ts";
import { ConfigError } from "./config.ts";

export function lockDataDir(dataDir: string): () => void {
  const path = join(dataDir, "pglite.lock");
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, "wx", 0o600);
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return () => rmSync(path, { force: true });
    } catch (error) {
      if (propertyOf(error, "code") !== "EEXIST") throw error;
      const holder = Number(readFileSync(path, "utf8"));
      if (holder && holder !== process.pid && alive(holder)) {
        throw new ConfigError(
          "DATA_DIR",
          `the embedded database in ${dataDir} is in use by process ${holder}; set DATABASE_URL to run several processes`,
        );
      }
      rmSync(path, { force: true }); // left by a process that died
    }
  }
  throw new ConfigError("DATA_DIR", `cannot lock ${path}`);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
