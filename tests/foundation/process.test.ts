// The platform as a user starts it: `bun main.ts`, real listeners, real signals.
import { afterAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { readMigrationFiles } from "drizzle-orm/migrator";
import { createEmptyPostgresDatabase, usingPostgres } from "../support/database.ts";
import { grpcHealthCheck } from "../support/grpc-health.ts";
import { jsonBody, type ReadinessBody } from "../support/json.ts";
import { runPlatform } from "../support/process.ts";
import { tempDirs } from "../support/temp.ts";
import { simulateDelay } from "../support/wait.ts";

const migrationCount = readMigrationFiles({
  migrationsFolder: join(import.meta.dir, "..", "..", "db", "migrations"),
}).length;
const appliedMigrations = (output: string[]) =>
  Number(
    output.find((l) => l.includes("migrations_applied"))?.match(/"migrations_applied":(\d+)/)?.[1] ??
      Number.NaN,
  );
const temp = tempDirs();
afterAll(temp.remove);
const newDataDir = () => temp.make("llmp-proc-");
const admin = { ADMIN_EMAIL: "owner@example.com", ADMIN_PASSWORD: "a long enough password" };

async function login(port: number, password = admin.ADMIN_PASSWORD) {
  const res = await fetch(`http://127.0.0.1:${port}/auth/login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email: admin.ADMIN_EMAIL, password }),
  });
  return res;
}

describe("bun start on an empty DATA_DIR", () => {
  test("every listener answers; a restart applies no migration and keeps the data", async () => {
    const dataDir = newDataDir();
    const env = { DATA_DIR: dataDir, ADMIN_EMAIL: admin.ADMIN_EMAIL };
    const first = await runPlatform(env);
    let password: string;
    try {
      expect(Object.keys(first.ports).sort()).toEqual([
        "dashboard",
        "filtration",
        "grpc",
        "inference",
        "orchestration",
      ]);
      for (const name of ["inference", "filtration", "orchestration", "dashboard"]) {
        const res = await fetch(`http://127.0.0.1:${first.ports[name]}/health`);
        expect(res.status).toBe(200);
        const ready = await fetch(`http://127.0.0.1:${first.ports[name]}/ready`);
        expect(ready.status).toBe(200);
        const { checks } = await jsonBody<ReadinessBody>(ready);
        expect(checks.database).toBe("ok");
        if (process.env.REDIS_URL) expect(checks.redis).toBe("ok");
      }
      expect(await grpcHealthCheck(`127.0.0.1:${first.ports.grpc}`)).toBe("SERVING");
      const dashboard = await fetch(`http://127.0.0.1:${first.ports.dashboard}/login`);
      expect(await dashboard.text()).toContain('action="/login"');
      // The generated administrator password is printed once.
      const printed = first.output.find((l) => l.startsWith("Password (shown once"));
      expect(printed).toBeDefined();
      password = (printed as string).split(": ").pop() as string;
      expect((await login(first.ports.filtration as number, password)).status).toBe(200);
      expect(appliedMigrations(first.output)).toBeGreaterThan(0);
    } finally {
      expect(await first.stop()).toBe(0);
    }

    const second = await runPlatform(env);
    try {
      expect(appliedMigrations(second.output)).toBe(0);
      expect(second.output.some((l) => l.startsWith("Password (shown once"))).toBe(false);
      expect((await login(second.ports.filtration as number, password)).status).toBe(200);
    } finally {
      expect(await second.stop()).toBe(0);
    }
  }, 90_000);

  test("a second process on the same embedded database is refused with a clear message", async () => {
    const env = { DATA_DIR: newDataDir(), ...admin };
    const first = await runPlatform(env);
    try {
      const proc = Bun.spawn(["bun", "main.ts"], {
        env: { ...process.env, ...env, SERVICES: "inference", INFERENCE_PORT: "0" },
        stdout: "pipe",
        stderr: "pipe",
      });
      expect(await proc.exited).not.toBe(0);
      expect(await new Response(proc.stderr).text()).toContain("DATA_DIR");
    } finally {
      await first.stop();
    }
  }, 60_000);

  test("SIGTERM lets in-flight requests finish, then exits 0", async () => {
    const running = await runPlatform({ DATA_DIR: newDataDir(), ...admin, SERVICES: "filtration" });
    const port = running.ports.filtration as number;
    expect((await login(port)).status).toBe(200); // warm: the listener is up and accepting
    // Each login runs a slow password hash (a dummy one for an unknown e-mail); six at once keep the
    // server busy for a while, so some are surely in flight when the signal arrives. Distinct e-mails,
    // so the login throttle's per-e-mail limits stay out of it.
    const inflight = Array.from({ length: 6 }, (_, i) =>
      fetch(`http://127.0.0.1:${port}/auth/login`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ email: `nobody${i}@example.com`, password: "not a real password" }),
      }),
    );
    // The signal comes 60 ms into the logins: the server says nothing of a request it is still hashing.
    await simulateDelay(60);
    const exited = running.stop("SIGTERM");
    const statuses = await Promise.all(inflight.map((r) => r.then((res) => res.status)));
    // Answered, not dropped: every one got its (401) answer before the process exited.
    expect(statuses).toEqual([401, 401, 401, 401, 401, 401]);
    expect(await exited).toBe(0);
    expect(running.output.some((l) => l.includes('"msg":"stopped"'))).toBe(true);
  }, 60_000);
});

describe("several processes on one PostgreSQL", () => {
  test.skipIf(!usingPostgres)(
    "gateways started at once as separate processes apply migrations once, without races",
    async () => {
      const database = await createEmptyPostgresDatabase();
      try {
        const shared = { DATABASE_URL: database.url, DATA_DIR: newDataDir(), ...admin };
        const processes = await Promise.all(
          ["inference", "filtration", "orchestration", "dashboard"].map((service) =>
            runPlatform({ ...shared, SERVICES: service }),
          ),
        );
        const applied = processes.map((p) => appliedMigrations(p.output));
        // Exactly one process applied each migration; the others found them done.
        expect(applied.filter((n) => n > 0)).toHaveLength(1);
        expect(applied.reduce((a, b) => a + b, 0)).toBe(migrationCount);
        const filtration = processes[1]?.ports.filtration as number;
        expect((await login(filtration)).status).toBe(200);
        for (const p of processes) expect(await p.stop()).toBe(0);
      } finally {
        await database.drop();
      }
    },
    90_000,
  );
});
