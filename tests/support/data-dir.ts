// A new data directory for a platform started as `bun start` runs it, on its embedded PGlite, with the
// database already migrated: a copy of one migrated cluster (DATA_DIR/pgdata), made once per migration
// set and PGlite version and kept in node_modules/.cache/llm-platform/. The platform then starts as it
// does on any later start of an installation (no migration left, the first administrator still to
// create): about 0.8 s of CPU where migrating from zero costs 2.4 s, some 25 starts a run (the browser
// tests, the docs' walk-throughs). A test file's database on PGlite is such a copy too (database.ts).
// Tests of the first start itself (first-start.test.ts, process.test.ts) start on an empty directory.
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { openDatabase } from "#db/client.ts";
import { migrate } from "#db/migrate.ts";
import { templatePath } from "#db/pglite-template.ts";

const root = join(import.meta.dir, "..", "..");
/** The project's build cache, beside the initdb template that PGlite's first open uses. */
const cacheDir = dirname(templatePath);
/** Where the platform keeps its embedded database under DATA_DIR (server/start/platform.ts). */
export const pgdata = "pgdata";
const migrationsDir = join(root, "db", "migrations");
/**
 * The migrations (and migrate.ts) hashed: the name of a migrated copy, so a changed migration makes a
 * new one and a stale one is never copied.
 */
export function migrationSetHash(): string {
  const hasher = new Bun.CryptoHasher("sha256");
  hasher.update(readFileSync(join(migrationsDir, "..", "migrate.ts")));
  for (const file of readdirSync(migrationsDir, { recursive: true }).map(String).sort()) {
    if (file.endsWith(".sql") || file.endsWith(".json"))
      hasher.update(readFileSync(join(migrationsDir, file)));
  }
  return hasher.digest("hex").slice(0, 16);
}

function clusterPath(): string {
  const manifest = join(root, "node_modules", "@electric-sql", "pglite", "package.json");
  const pglite: string = JSON.parse(readFileSync(manifest, "utf8")).version;
  return join(cacheDir, `pglite-migrated-${pglite}-${migrationSetHash()}`);
}

let cluster: Promise<string> | undefined;

/**
 * The migrated cluster, made by the first test process that needs it: built in a directory of its own,
 * then renamed into place (atomic; a process that loses the race drops its copy), so a run stopped
 * half-way never leaves half a cluster to copy.
 */
function migratedCluster(): Promise<string> {
  cluster ??= (async () => {
    const path = clusterPath();
    if (existsSync(path)) return path;
    const building = mkdtempSync(join(tmpdir(), "llmp-pgdata-"));
    try {
      const handle = await openDatabase({ pgliteDir: join(building, pgdata) });
      try {
        await migrate(handle.db);
      } finally {
        await handle.close();
      }
      mkdirSync(cacheDir, { recursive: true });
      try {
        renameSync(join(building, pgdata), path);
      } catch (error) {
        if (!existsSync(path)) throw error;
      }
      return path;
    } finally {
      rmSync(building, { recursive: true, force: true });
    }
  })();
  return cluster;
}

/** A new directory under TMPDIR holding a copy of the migrated cluster as its `pgdata`. */
export async function migratedDataDir(prefix: string): Promise<string> {
  const source = await migratedCluster();
  const dir = mkdtempSync(join(tmpdir(), prefix));
  cpSync(source, join(dir, pgdata), { recursive: true });
  return dir;
}
