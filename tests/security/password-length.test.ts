// Passwords are at least 12 characters (OWASP ASVS 2.1.1; issue 33, finding 16), or PASSWORD_MIN_LENGTH
// when the operator sets it higher: registration, a new account added by an administrator, a password
// change and ADMIN_PASSWORD all follow it.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ConfigError, loadConfig } from "#server/config.ts";
import {
  adminPassword,
  call,
  type ErrorBody,
  type Handler,
  loginAsAdmin,
  type TestApp,
} from "../support/app.ts";
import { startGateway } from "../support/callers.ts";
import { tempDirs } from "../support/temp.ts";

const temp = tempDirs();
afterAll(() => temp.remove());
const configWith = (env: Record<string, string>) =>
  loadConfig({ DATA_DIR: temp.make("llmp-password-length-"), ...env });

test("PASSWORD_MIN_LENGTH: 12 unless set, never lower; ADMIN_PASSWORD follows it", () => {
  expect(configWith({}).passwordMinLength).toBe(12);
  expect(configWith({ PASSWORD_MIN_LENGTH: "16" }).passwordMinLength).toBe(16);
  for (const bad of ["8", "11", "257", "twelve"])
    expect(() => configWith({ PASSWORD_MIN_LENGTH: bad })).toThrow(ConfigError);
  expect(() => configWith({ ADMIN_PASSWORD: "elevenchars" })).toThrow("ADMIN_PASSWORD");
  expect(configWith({ ADMIN_PASSWORD: "twelve chars" }).adminPassword).toBe("twelve chars");
  expect(() => configWith({ PASSWORD_MIN_LENGTH: "16", ADMIN_PASSWORD: "twelve chars" })).toThrow("16");
});

describe.each([
  ["by default", {}, 12],
  ["with PASSWORD_MIN_LENGTH=20", { PASSWORD_MIN_LENGTH: "20" }, 20],
])("%s", (_, env, min) => {
  let t: TestApp;
  let api: Handler;
  let admin: string;
  beforeAll(async () => {
    ({ t, handle: api } = await startGateway("filtration", { ALLOW_REGISTRATION: "true", ...env }));
    admin = (await loginAsAdmin(api)).access_token;
  }, 60_000);
  afterAll(() => t.close());

  const short = "x".repeat(min - 1);
  const enough = "y".repeat(min);
  const email = () => `pw-${crypto.randomUUID().slice(0, 8)}@example.com`;
  const fieldOf = (res: { body: ErrorBody }) => res.body.error.details?.fields?.[0];

  test("registration", async () => {
    const refused = await call<ErrorBody>(api, "POST", "/auth/register", {
      body: { email: email(), password: short },
    });
    expect(refused.status).toBe(400);
    expect(fieldOf(refused)?.field).toBe("password");
    expect(
      (await call(api, "POST", "/auth/register", { body: { email: email(), password: enough } })).status,
    ).toBe(201);
  });

  test("a new account added by an administrator", async () => {
    const add = <R = unknown>(password: string) =>
      call<R>(api, "POST", "/admin/users", {
        token: admin,
        body: { email: email(), password, role: "viewer" },
      });
    const refused = await add<ErrorBody>(short);
    expect(refused.status).toBe(400);
    expect(fieldOf(refused)).toEqual({ field: "password", message: `must be at least ${min} characters` });
    expect((await add(enough)).status).toBe(201);
  });

  test("a password change", async () => {
    const refused = await call<ErrorBody>(api, "POST", "/auth/password", {
      token: admin,
      body: { current_password: adminPassword, new_password: short },
    });
    expect(refused.status).toBe(400);
    expect(fieldOf(refused)?.field).toBe("new_password");
  });
});
