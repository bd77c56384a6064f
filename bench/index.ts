// `bun run bench [name] [args...]`: runs one benchmark script of this folder; without a name, lists them.
// Benchmarks are run by hand and their figures reported in the README; they are not part of `bun test`.
import { basename } from "node:path";

const scripts = [...new Bun.Glob("*.ts").scanSync({ cwd: import.meta.dir })]
  .filter((f) => f !== "index.ts" && f !== "prompts.ts" && !f.endsWith("-metrics.ts"))
  .map((f) => basename(f, ".ts"))
  .sort();

const [name, ...args] = process.argv.slice(2);
if (!name || !scripts.includes(name)) {
  console.log(`usage: bun run bench <name> [args]\n\nbenchmarks: ${scripts.join(", ")}`);
  process.exit(name ? 1 : 0);
}
const proc = Bun.spawn([process.execPath, `${import.meta.dir}/${name}.ts`, ...args], {
  stdio: ["inherit", "inherit", "inherit"],
});
process.exit(await proc.exited);
