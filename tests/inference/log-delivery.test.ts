// Inference logs reach the database promptly and survive a stop: written within 2 s of the last
// answer; and a gateway running apart whose filtration side is gone still exits within 10 s of
// SIGTERM without losing an entry (on a shared PostgreSQL it writes them straight to the database;
// otherwise it spills them under DATA_DIR and sends them at its next start).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { and, count, eq } from "drizzle-orm";
import { inferenceLogs } from "#db/schema/index.ts";
import { buildHttpGateway } from "#routes/gateways.ts";
import { listen } from "#server/http/listen.ts";
import type { Listener } from "#server/start/platform.ts";
import { eventually } from "../orchestration/support.ts";
import { usingPostgres } from "../support/database.ts";
import { type RunningPlatform, runPlatform } from "../support/process.ts";
import { tempDirs } from "../support/temp.ts";
import { until } from "../support/wait.ts";
import { chat, type GatewayTest, startGatewayTest } from "./support.ts";

async function loggedCount(g: GatewayTest): Promise<number> {
  const [row] = await g.o.t.app.db
    .select({ n: count() })
    .from(inferenceLogs)
    .where(and(eq(inferenceLogs.deploymentId, g.deploymentId)));
  return Number(row?.n ?? 0);
}

/** `total` requests, 20 at a time. */
async function send(g: Pick<GatewayTest, "url" | "key" | "model">, total: number): Promise<number[]> {
  const statuses: number[] = [];
  for (let from = 0; from < total; from += 20) {
    const batch = Array.from({ length: Math.min(20, total - from) }, async (_, i) => {
      const response = await chat(g, { messages: [{ role: "user", content: `request ${from + i}` }] });
      await response.arrayBuffer();
      return response.status;
    });
    statuses.push(...(await Promise.all(batch)));
  }
  return statuses;
}

describe("inference logs", () => {
  let g: GatewayTest;
  beforeAll(async () => {
    g = await startGatewayTest();
  }, 30_000);
  afterAll(() => g.close(), 30_000);

  test("are all written within 2 s of the last answer", async () => {
    const total = 200;
    const statuses = await send(g, total);
    expect(statuses.every((s) => s === 200)).toBe(true);
    const answered = performance.now();
    // Database rows: polled.
    const logged = await until(
      async () => {
        const rows = await loggedCount(g);
        return rows >= total && rows;
      },
      { what: `${total} log rows`, timeoutMs: 5000, intervalMs: 25 },
    );
    expect(logged).toBe(total);
    expect(performance.now() - answered).toBeLessThan(2000);
  }, 30_000);
});

describe("a gateway apart whose filtration side is gone", () => {
  let g: GatewayTest;
  let filtration: Listener;
  const temp = tempDirs();
  const gateways: RunningPlatform[] = [];
  beforeAll(async () => {
    g = await startGatewayTest();
    filtration = listen(g.o.t.app, "filtration", 0, await buildHttpGateway(g.o.t.app, "filtration"));
  }, 30_000);
  afterAll(async () => {
    for (const p of gateways) if (p.proc.exitCode === null) await p.stop("SIGKILL");
    await filtration?.stop(0);
    await g?.close();
    temp.remove();
  }, 30_000);

  test("exits within 10 s of SIGTERM and loses no log entry", async () => {
    const filtrationPort = filtration.port;
    const env = {
      SERVICES: "inference",
      FILTRATION_URL: `http://127.0.0.1:${filtrationPort}`,
      INTERNAL_API_KEY: g.o.t.config.internalApiKey,
      DATA_DIR: temp.make("llmp-spill-"),
      ...(g.o.t.database.url ? { DATABASE_URL: g.o.t.database.url } : {}),
    };
    const first = await runPlatform(env);
    gateways.push(first);
    const target = { ...g, url: `http://127.0.0.1:${first.ports.inference}` };
    const total = 60;
    expect((await send(target, total)).every((s) => s === 200)).toBe(true);
    // Filtration goes away before the batcher's interval (1 s) came round for these entries.
    await filtration.stop(0);
    const signalled = performance.now();
    expect(await first.stop("SIGTERM")).toBe(0);
    expect(performance.now() - signalled).toBeLessThan(10_000);

    const spillDir = join(env.DATA_DIR, "spill");
    const spilled = () => {
      let lines = 0;
      try {
        for (const name of readdirSync(spillDir).filter((n) => n.startsWith("logs-")))
          lines += readFileSync(join(spillDir, name), "utf8").split("\n").filter(Boolean).length;
      } catch {}
      return lines;
    };
    if (usingPostgres) {
      // The same PostgreSQL: written straight to it, nothing went through (or waited for) filtration.
      await eventually(async () => (await loggedCount(g)) === total, 2000, "logs in the shared database");
      expect(spilled()).toBe(0);
      return;
    }
    // Its own embedded database: kept under DATA_DIR, and sent once filtration is back.
    expect(await loggedCount(g)).toBe(0);
    expect(spilled()).toBe(total);
    filtration = listen(
      g.o.t.app,
      "filtration",
      filtrationPort,
      await buildHttpGateway(g.o.t.app, "filtration"),
    );
    const second = await runPlatform(env);
    gateways.push(second);
    await eventually(async () => (await loggedCount(g)) === total, 5000, "spilled logs sent");
    expect(spilled()).toBe(0);
    expect(await second.stop("SIGTERM")).toBe(0);
  }, 60_000);
});
