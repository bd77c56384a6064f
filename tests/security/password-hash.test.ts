// The cost of new password hashes: argon2id at 64 MiB and 2 passes unless PASSWORD_HASH_MEMORY_KIB and
// PASSWORD_HASH_TIME_COST say otherwise; a stored hash keeps its own cost, so changing it locks nobody
// out. (The rest of the suite runs at 1 MiB, 1 pass: tests/support/preload.ts.)
import { afterAll, beforeAll, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { users } from "#db/schema/index.ts";
import { ConfigError, loadConfig } from "#server/config.ts";
import { hashPassword, verifyPassword } from "#services/crypto/passwords.ts";
import { adminEmail, adminPassword, call, type Handler, type TestApp } from "../support/app.ts";
import { startGateway } from "../support/callers.ts";
import { tempDirs } from "../support/temp.ts";

const temp = tempDirs();
let t: TestApp;
let api: Handler;

beforeAll(async () => {
  ({ t, handle: api } = await startGateway("filtration"));
}, 60_000);
afterAll(async () => {
  await t.close();
  temp.remove();
});

const configWith = (env: Record<string, string>) =>
  loadConfig({ DATA_DIR: temp.make("llmp-password-hash-"), ...env });

test("by default a new hash is argon2id at 64 MiB and 2 passes; the variables set another cost", async () => {
  const defaults = configWith({}).passwordHash;
  expect(defaults).toEqual({ memoryKib: 65_536, timeCost: 2 });
  expect(await hashPassword("a long password", defaults)).toStartWith("$argon2id$v=19$m=65536,t=2,p=1$");
  const owasp = configWith({ PASSWORD_HASH_MEMORY_KIB: "19456", PASSWORD_HASH_TIME_COST: "2" }).passwordHash;
  expect(await hashPassword("a long password", owasp)).toStartWith("$argon2id$v=19$m=19456,t=2,p=1$");
});

test("a cost out of range stops the start, naming the variable", () => {
  const bad: [string, string][] = [
    ["PASSWORD_HASH_MEMORY_KIB", "512"],
    ["PASSWORD_HASH_MEMORY_KIB", "4194305"],
    ["PASSWORD_HASH_MEMORY_KIB", "64M"],
    ["PASSWORD_HASH_TIME_COST", "0"],
    ["PASSWORD_HASH_TIME_COST", "33"],
    ["PASSWORD_HASH_TIME_COST", "1.5"],
  ];
  for (const [variable, value] of bad) {
    let error: unknown;
    try {
      configWith({ [variable]: value });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).variable).toBe(variable);
  }
});

test("a password hashed at another cost still signs in, and a wrong one still does not", async () => {
  // The administrator's hash made at the default cost, the app configured at the suite's cheap one.
  const strong = await hashPassword(adminPassword, configWith({}).passwordHash);
  await t.app.db.update(users).set({ passwordHash: strong }).where(eq(users.email, adminEmail));
  expect(t.app.config.passwordHash).not.toEqual(configWith({}).passwordHash);
  const ok = await call(api, "POST", "/auth/login", { body: { email: adminEmail, password: adminPassword } });
  expect(ok.status).toBe(200);
  const wrong = await call(api, "POST", "/auth/login", {
    body: { email: adminEmail, password: "not the password at all" },
  });
  expect(wrong.status).toBe(401);
  expect(await verifyPassword(adminPassword, strong)).toBe(true);
});
