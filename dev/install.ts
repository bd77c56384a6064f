// Installs the development kit (dev/package.json: the test suite's clients, linters, code generators)
// when dev/node_modules is missing or older than dev/bun.lock, and links its direct dependencies into
// tests/, bench/ and scripts/ (`<dir>/node_modules/<name>` -> dev/node_modules/<name>).
//
// Why a separate install: `bun install` at the root is what a newcomer and a server run; it stays under
// 400 MB (.ci/run checks) without these ~680 MB. Why links per package rather than one link to the
// whole dev/node_modules: a test importing a package the platform uses (ajv, jose, @opentelemetry/api)
// must get the root's copy, the one the platform's own modules hold, not the kit's.
//
// The kit's commands (biome, drizzle-kit, redocly, spectral, buf, protoc-gen-es, ...) are linked into the
// root's node_modules/.bin too, so `bunx biome`, `bun run lint` and buf.gen.yaml run the locked versions
// (bunx would otherwise fetch the newest from the registry).
//
// Run by tests/support/preload.ts before every `bun test`, and by the `lint`, `typecheck`, `bench`,
// `proto` and `db:generate` scripts; `bun dev/install.ts` by hand does the same. Quiet when up to date.
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { dirname, join, relative } from "node:path";

const kit = import.meta.dir;
const root = dirname(kit);
/** The folders whose files import the kit's packages. */
const users = ["tests", "bench", "scripts"];
const stampFile = join(kit, "node_modules", ".installed-from");

/** What the install was made from: the lockfile and the manifest, so a change to either reinstalls. */
function fingerprint(): string {
  const hasher = new Bun.CryptoHasher("sha256");
  hasher.update(readFileSync(join(kit, "bun.lock")));
  hasher.update(readFileSync(join(kit, "package.json")));
  return hasher.digest("hex");
}

function directDependencies(): string[] {
  const manifest: { devDependencies?: Record<string, string> } = JSON.parse(
    readFileSync(join(kit, "package.json"), "utf8"),
  );
  return Object.keys(manifest.devDependencies ?? {});
}

function install(): void {
  console.error("dev/install.ts: installing the development kit (dev/package.json) ...");
  const run = Bun.spawnSync(["bun", "install", "--frozen-lockfile"], {
    cwd: kit,
    stdout: "inherit",
    stderr: "inherit",
  });
  if (run.exitCode !== 0) throw new Error(`bun install in dev/ failed (exit ${run.exitCode})`);
}

/** `<dir>/node_modules/<name>` -> the kit's copy, for each of the kit's direct dependencies. */
function link(names: string[]): void {
  for (const dir of users) {
    for (const name of names) {
      const at = join(root, dir, "node_modules", name);
      const target = join(kit, "node_modules", name);
      if (existsLink(at)) rmSync(at, { recursive: true, force: true });
      mkdirSync(dirname(at), { recursive: true });
      symlinkSync(relative(dirname(at), target), at, "dir");
    }
  }
}

/** The kit's commands not already the root's, as links in the root's node_modules/.bin. */
function linkCommands(): void {
  const from = join(kit, "node_modules", ".bin");
  const to = join(root, "node_modules", ".bin");
  if (!existsSync(from)) return;
  mkdirSync(to, { recursive: true });
  for (const command of readdirSync(from)) {
    const at = join(to, command);
    if (existsLink(at)) continue;
    symlinkSync(relative(to, realpathSync(join(from, command))), at);
  }
}

const commandsLinked = () =>
  !existsSync(join(kit, "node_modules", ".bin")) ||
  readdirSync(join(kit, "node_modules", ".bin")).every((c) =>
    existsLink(join(root, "node_modules", ".bin", c)),
  );

const existsLink = (path: string) => {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
};

export function ensureDevKit(): void {
  const wanted = fingerprint();
  const names = directDependencies();
  const linked = users.every((dir) =>
    names.every((name) => existsLink(join(root, dir, "node_modules", name))),
  );
  const installed = existsSync(stampFile) && readFileSync(stampFile, "utf8") === wanted;
  if (installed && linked && commandsLinked()) return;
  if (!installed) install();
  link(names);
  linkCommands();
  writeFileSync(stampFile, wanted);
  if (!linked)
    console.error(
      "dev/install.ts: tests/node_modules was missing (an install without scripts?); made now. " +
        "A `bun test` already running may not find the kit's packages: run it again.",
    );
}

// `--links` (the root's postinstall): the links alone, dangling until the kit is installed. Bun's resolver
// reads a folder once per process: a `bun test` that found no tests/node_modules when it started does not
// see one its preload creates, so the links must be there first (the kit itself may come later).
if (import.meta.main) {
  if (process.argv.includes("--links")) link(directDependencies());
  else ensureDevKit();
}
