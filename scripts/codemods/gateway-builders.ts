// After routes/gateways.ts took buildHttpGateway(app, name) (server/http/listen.ts now builds from a
// gateway's description, not its name): points the callers at it. Idempotent.
//   bun scripts/codemods/gateway-builders.ts
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const root = join(import.meta.dir, "../..");
const files = Bun.spawnSync(
  ["git", "grep", "-l", "-e", "buildHttpGateway", "-e", "buildDashboard", "--", "tests", "bench", "scripts"],
  { cwd: root },
)
  .stdout.toString()
  .split("\n")
  .filter((f) => /\.tsx?$/.test(f) && !f.startsWith("scripts/codemods/"));
for (const file of files) {
  const path = join(root, file);
  const text = readFileSync(path, "utf8");
  let next = text
    .replace(
      'import { buildHttpGateway, listen } from "#server/http/listen.ts";',
      'import { buildHttpGateway } from "#routes/gateways.ts";\nimport { listen } from "#server/http/listen.ts";',
    )
    .replace(
      'import { buildHttpGateway } from "#server/http/listen.ts";',
      'import { buildHttpGateway } from "#routes/gateways.ts";',
    )
    .replace(
      /import \{ buildDashboard \} from "#routes\/dashboard\/(_gateway|_shared\/listener)\.ts";/,
      'import { buildHttpGateway } from "#routes/gateways.ts";',
    )
    .replace(/buildDashboard\((\w[\w.]*)\)/g, 'buildHttpGateway($1, "dashboard")');
  // A file that imported both builders now imports the one twice.
  const line = 'import { buildHttpGateway } from "#routes/gateways.ts";\n';
  const first = next.indexOf(line);
  if (first !== -1)
    next = next.slice(0, first + line.length) + next.slice(first + line.length).replaceAll(line, "");
  if (next !== text) {
    writeFileSync(path, next);
    console.log(`rewritten ${file}`);
  }
}
