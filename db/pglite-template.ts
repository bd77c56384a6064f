// PGlite's initdb costs about 4 s on a 2-core machine; loading a dumped, freshly initialised cluster
// costs about 0.5 s. The template is made once (postinstall, or on first use) and reused by the first
// start of an installation and by every test database.

import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
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

/**
 * The template as an uncompressed tar in a temporary file, to hand PGlite as `loadDataDir`; `dispose`
 * removes the file once PGlite has read it. Given the gzip itself, PGlite gunzips it in memory (the
 * 40 MB of output as chunks, then joined into one more 40 MB copy) while it also holds what it untars:
 * streamed to a file here, the tar is read once.
 */
export async function openTemplate(): Promise<{ tar: Blob; dispose(): void } | undefined> {
  if (!existsSync(templatePath)) return undefined;
  const dir = mkdtempSync(join(tmpdir(), "llm-platform-pglite-template-"));
  const dispose = () => rmSync(dir, { recursive: true, force: true });
  try {
    const path = join(dir, "pglite-initdb.tar");
    await Bun.write(
      path,
      new Response(Bun.file(templatePath).stream().pipeThrough(new DecompressionStream("gzip"))),
    );
    return { tar: Bun.file(path), dispose };
  } catch (error) {
    dispose();
    throw error;
  }
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
