// PGlite's initdb costs about 4 s on a 2-core machine; loading a dumped, freshly initialised cluster
// costs about 0.5 s. The template is made once (postinstall, or on first use) and reused by the first
// start of an installation and by every test database.

import { existsSync, mkdirSync, renameSync } from "node:fs";
import { dirname, join } from "node:path";
import { PGlite } from "@electric-sql/pglite";

export const templatePath = join(
  import.meta.dir,
  "..",
  "node_modules",
  ".cache",
  "llm-platform",
  "pglite-initdb.tar.gz",
);

export async function loadTemplate(): Promise<Blob | undefined> {
  if (!existsSync(templatePath)) return undefined;
  return new Blob([await Bun.file(templatePath).arrayBuffer()]);
}

/** Writes the template if it is missing. Safe when several processes race: the rename is atomic. */
export async function ensureTemplate(): Promise<void> {
  if (existsSync(templatePath)) return;
  const fresh = await PGlite.create("memory://");
  try {
    await saveTemplate(fresh);
  } finally {
    await fresh.close();
  }
}

/** Dumps a pristine cluster (no tables yet) as the template. */
export async function saveTemplate(pristine: PGlite): Promise<void> {
  if (existsSync(templatePath)) return;
  mkdirSync(dirname(templatePath), { recursive: true });
  const tmp = `${templatePath}.${process.pid}.tmp`;
  await Bun.write(tmp, await pristine.dumpDataDir("gzip"));
  renameSync(tmp, templatePath);
}

if (import.meta.main) await ensureTemplate();
