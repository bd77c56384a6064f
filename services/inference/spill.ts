// Logs and usage the gateway could not hand over before it stopped (the filtration side or the
// database gone): written to a file under DATA_DIR at shutdown, and queued again at the next start,
// so a stop loses no entry and still ends within its deadline. One JSON record a line; a file is
// written whole (to a temporary name, then renamed) and deleted once its records are queued again.
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export function spill(dir: string, kind: string, records: readonly unknown[]): string | undefined {
  if (records.length === 0) return undefined;
  mkdirSync(dir, { recursive: true });
  const name = `${kind}-${Date.now()}-${process.pid}-${crypto.randomUUID().slice(0, 8)}.jsonl`;
  const path = join(dir, name);
  writeFileSync(`${path}.partial`, `${records.map((r) => JSON.stringify(r)).join("\n")}\n`);
  renameSync(`${path}.partial`, path);
  return path;
}

/** The records spilled earlier for `kind`, oldest file first; their files are removed. */
export function takeSpilled<T>(dir: string, kind: string): T[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const records: T[] = [];
  for (const name of names.filter((n) => n.startsWith(`${kind}-`) && n.endsWith(".jsonl")).sort()) {
    const path = join(dir, name);
    for (const line of readFileSync(path, "utf8").split("\n"))
      if (line !== "") records.push(JSON.parse(line) as T);
    rmSync(path, { force: true });
  }
  return records;
}
