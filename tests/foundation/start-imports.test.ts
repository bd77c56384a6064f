// What `bun start` loads: libraries only some installations use are imported when first used, not at
// start (each costs every process its resident memory and start time: docs/performance.md,
// "Start-up and idle memory"). What a start loads: server/start/platform.ts's imports and every gateway's
// route files (server/http/loader.ts imports them when the listeners start).
import { expect, test } from "bun:test";
import { join } from "node:path";

const root = join(import.meta.dir, "../..");
const gateways = ["_common", "inference", "filtration", "orchestration", "dashboard"];

/** Loaded on first use: a cluster's API, the tracing SDK and its exporter, the document readers. */
const lazy = [
  "@kubernetes/client-node",
  "@opentelemetry/sdk-trace",
  "@opentelemetry/exporter-trace-otlp-http",
  "mdast-util-from-markdown",
  "html-to-text",
  "unpdf",
];

test("starting the platform does not load the libraries only some installations use", async () => {
  const probe = `await import("#server/start/platform.ts");
    const { loadRouteFiles } = await import("#server/http/loader.ts");
    for (const gateway of ${JSON.stringify(gateways)}) await loadRouteFiles(gateway);
    console.log(JSON.stringify(Object.keys(require.cache)));`;
  const proc = Bun.spawn(["bun", "--eval", probe], { cwd: root, stdout: "pipe", stderr: "inherit" });
  const loaded = JSON.parse(await new Response(proc.stdout).text()) as string[];
  expect(await proc.exited).toBe(0);
  // The probe sees the start's graph (the gateways and the database client are in it).
  expect(loaded.some((path) => path.includes("/node_modules/elysia/"))).toBe(true);
  expect(loaded.some((path) => path.endsWith("/server/http/listen.ts"))).toBe(true);
  expect(loaded.some((path) => path.endsWith("/routes/filtration/management/knowledge-base/upload.ts"))).toBe(
    true,
  );
  const packageOf = (name: string) => loaded.filter((path) => path.includes(`/node_modules/${name}/`));
  expect(Object.fromEntries(lazy.map((name) => [name, packageOf(name)]))).toEqual(
    Object.fromEntries(lazy.map((name) => [name, []])),
  );
}, 30_000);
