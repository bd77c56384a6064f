// What opening the embedded database leaves resident (issue #34, docs/performance.md "What limits the targets", the runs in docs/performance-history.md "Memory (#34)").
// The template reaches PGlite as an uncompressed tar in a temporary file, removed once read, and the
// worker collects its opening's garbage at once: a process that opened a new database held 214-257 MB
// without that collection, 169-171 MB with it (Bun's own 40 MB and PGlite's compiled WebAssembly,
// about 50 MB, included).
import { expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openTemplate, templatePath } from "#db/pglite-template.ts";

const root = join(import.meta.dir, "..", "..");

test("the template is handed over as a tar, and its temporary file is removed after", async () => {
  expect(existsSync(templatePath)).toBe(true);
  const template = await openTemplate();
  if (!template) throw new Error("no template");
  const head = new Uint8Array(await template.tar.slice(0, 512).arrayBuffer());
  // A tar's header has "ustar" at 257; a gzip starts with 1f 8b.
  expect(new TextDecoder().decode(head.subarray(257, 262))).toBe("ustar");
  const path = (template.tar as Bun.BunFile).name as string;
  expect(existsSync(path)).toBe(true);
  template.dispose();
  expect(existsSync(path)).toBe(false);
});

test("a process that opened a new embedded database holds under 200 MB once it is open", async () => {
  const dir = mkdtempSync(join(tmpdir(), "llmp-open-rss-"));
  try {
    const script = `
      import { openDatabase } from "#db/client.ts";
      import { simulateDelay } from "./tests/support/wait.ts";
      const db = await openDatabase({ pgliteDir: ${JSON.stringify(join(dir, "pgdata"))} });
      // Freed pages go back to the system a little after a collection, not at once: the least of ten
      // readings 50 ms apart, each after a full collection of this thread (the worker's own garbage is
      // only collected by the worker, which is what this test is about).
      let least = Infinity;
      for (let i = 0; i < 10; i++) {
        Bun.gc(true);
        await simulateDelay(50);
        const kib = Number((await Bun.file("/proc/self/status").text()).match(/VmRSS:\\s+(\\d+)/)?.[1]);
        least = Math.min(least, kib);
      }
      await db.close();
      console.log(Math.round(least / 1024));`;
    const proc = Bun.spawn([process.execPath, "-e", script], {
      cwd: root,
      stdout: "pipe",
      stderr: "inherit",
    });
    const out = await new Response(proc.stdout).text();
    expect(await proc.exited).toBe(0);
    const residentMiB = Number(out.trim());
    expect(residentMiB).toBeGreaterThan(0);
    expect(residentMiB).toBeLessThan(200);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, 60_000);
