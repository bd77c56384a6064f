// A first start that fails on a taken port creates no administrator (so the next start prints the
// generated password), and says which variable to change; `bun run admin:reset-password EMAIL` gives an
// operator who lost the password a new one, ends the user's sessions and is audited. Real processes,
// on embedded PGlite or on PostgreSQL (TEST_DATABASE_URL).
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { POST as loginRoute } from "#routes/filtration/auth/login.ts";
import { createEmptyPostgresDatabase, usingPostgres } from "../support/database.ts";
import { jsonBody } from "../support/json.ts";
import { ephemeralPorts, runPlatform } from "../support/process.ts";

const root = join(import.meta.dir, "..", "..");
const email = "first@example.com";
const dataDir = mkdtempSync(join(tmpdir(), "llmp-first-start-"));
const database = usingPostgres ? await createEmptyPostgresDatabase() : undefined;
const env: Record<string, string> = {
  DATA_DIR: dataDir,
  ADMIN_EMAIL: email,
  ADMIN_PASSWORD: "",
  ...(database ? { DATABASE_URL: database.url } : { DATABASE_URL: "" }),
  REDIS_URL: "",
};
// Another server on the port, one that (like a second copy of the platform) allows sharing it: the
// platform must still refuse it rather than split the traffic.
const taken = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  reusePort: true,
  fetch: () => new Response("someone else"),
});

afterAll(async () => {
  taken.stop(true);
  await database?.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

const login = (port: number, password: string) =>
  fetch(`http://127.0.0.1:${port}/auth/login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email, password }),
  });

async function run(command: string[], extra: Record<string, string> = {}) {
  const proc = Bun.spawn(command, {
    cwd: root,
    env: { ...process.env, LOG_LEVEL: "error", ...ephemeralPorts, ...env, ...extra },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [code, stdout, stderr] = await Promise.all([
    proc.exited,
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
  ]);
  return { code, stdout, stderr };
}

const resetPassword = (extra: Record<string, string> = {}) =>
  run(["bun", "run", "admin:reset-password", email], extra);

let password = "";

test("a taken port: exit 78 naming the variable, and no administrator left behind", async () => {
  // The inference gateway binds last: the others were bound (and are closed again) when it fails.
  const failed = await run(["bun", "main.ts"], { INFERENCE_PORT: String(taken.port) });
  expect(failed.code).toBe(78);
  expect(failed.stderr).toContain(`port ${taken.port} is in use: set INFERENCE_PORT to another port`);
  expect(failed.stdout).not.toContain("Password (shown once");

  // Nobody was created: the next start creates the administrator and prints its password.
  const reset = await resetPassword();
  expect(reset.code).toBe(1);
  expect(reset.stderr).toContain(`user ${email} not found`);

  const next = await runPlatform(env);
  try {
    const printed = next.output.find((l) => l.startsWith("Password (shown once"));
    expect(printed).toBeDefined();
    password = (printed as string).split(": ").pop() as string;
    expect((await login(next.ports.filtration as number, password)).status).toBe(200);
  } finally {
    expect(await next.stop()).toBe(0);
  }
}, 90_000);

test("admin:reset-password prints a new password, ends the sessions, and is audited", async () => {
  expect(password).not.toBe("");
  // A session from before the reset, to see it end.
  let platform = await runPlatform(env);
  let refreshToken: string;
  try {
    const before = await login(platform.ports.filtration as number, password);
    refreshToken = (await jsonBody<typeof loginRoute>(before)).refresh_token;
  } finally {
    await platform.stop();
  }

  const reset = await resetPassword();
  expect(reset.code).toBe(0);
  // The sign-ins of the first test and of this one.
  expect(reset.stdout).toContain("2 session(s) revoked");
  const fresh = reset.stdout.match(/New password \(shown once, change it\): (\S+)/)?.[1] as string;
  expect(fresh).toBeString();
  expect(fresh).not.toBe(password);

  const chosen = await resetPassword({ ADMIN_PASSWORD: "chosen by the operator" });
  expect(chosen.code).toBe(0);
  expect(chosen.stdout).toContain("the one given in ADMIN_PASSWORD");

  platform = await runPlatform(env);
  try {
    const port = platform.ports.filtration as number;
    expect((await login(port, password)).status).toBe(401);
    expect((await login(port, fresh)).status).toBe(401);
    const now = await login(port, "chosen by the operator");
    expect(now.status).toBe(200);
    const refreshed = await fetch(`http://127.0.0.1:${port}/auth/refresh`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ refresh_token: refreshToken }),
    });
    expect(refreshed.status).toBe(401);
    const { access_token } = await jsonBody<typeof loginRoute>(now);
    const audit = await fetch(`http://127.0.0.1:${port}/audit/logs?action=user.password_reset`, {
      headers: { authorization: `Bearer ${access_token}` },
    });
    expect(audit.status).toBe(200);
    const text = await audit.text();
    expect(text).toContain("user.password_reset");
    expect(text).not.toContain(fresh);
  } finally {
    expect(await platform.stop()).toBe(0);
  }
}, 120_000);

test("on the embedded database, the script refuses while the platform runs", async () => {
  const embedded = {
    ...env,
    DATA_DIR: join(dataDir, "embedded"),
    DATABASE_URL: "",
    ADMIN_PASSWORD: "a long enough password",
  };
  const platform = await runPlatform(embedded);
  try {
    const reset = await resetPassword(embedded);
    expect(reset.code).toBe(78);
    expect(reset.stderr).toContain("in use by process");
  } finally {
    await platform.stop();
  }
}, 60_000);
