import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { SignJWT } from "jose";
import { users } from "#db/schema/index.ts";
import type { POST as login } from "#routes/filtration/auth/login.ts";
import type { GET as me } from "#routes/filtration/auth/me.ts";
import type { POST as refresh } from "#routes/filtration/auth/refresh.ts";
import type { POST as switchOrg } from "#routes/filtration/auth/switch-org.ts";
import {
  adminEmail,
  adminPassword,
  call,
  type ErrorBody,
  type Handler,
  loginAsAdmin,
  type TestApp,
} from "../support/app.ts";
import { startGateway } from "../support/callers.ts";

let t: TestApp;
let handle: Handler;

beforeAll(async () => {
  ({ t, handle } = await startGateway("filtration"));
}, 60_000);
afterAll(() => t.close());

describe("POST /auth/login", () => {
  test("returns tokens and the user with role and organization", async () => {
    const res = await call<typeof login>(handle, "POST", "/auth/login", {
      body: { email: adminEmail, password: adminPassword },
    });
    expect(res.status).toBe(200);
    expect(res.body.token_type).toBe("bearer");
    expect(res.body.access_token.split(".")).toHaveLength(3);
    expect(res.body.refresh_token.split(".")).toHaveLength(3);
    expect(res.body.user).toMatchObject({ email: adminEmail, role: "admin" });
    expect(res.body.user.org_id).toBeString();
    expect(JSON.stringify(res.body)).not.toContain("argon2");
  });

  test("e-mail is matched without regard to case or spaces", async () => {
    const res = await call(handle, "POST", "/auth/login", {
      body: { email: ` ${adminEmail.toUpperCase()} `, password: adminPassword },
    });
    expect(res.status).toBe(200);
  });

  test("wrong password and unknown e-mail get the same 401", async () => {
    const wrong = await call<ErrorBody>(handle, "POST", "/auth/login", {
      body: { email: adminEmail, password: "not the password" },
    });
    const unknown = await call<ErrorBody>(handle, "POST", "/auth/login", {
      body: { email: "nobody@example.com", password: "whatever1" },
    });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(wrong.body).toEqual(unknown.body);
    expect(wrong.body.error.code).toBe("unauthenticated");
  });

  test("a body that is not JSON is 400 validation_error", async () => {
    const res = await call<ErrorBody>(handle, "POST", "/auth/login", { raw: "{not json" });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("validation_error");
  });

  test("a body of the wrong shape is 400 naming each bad field", async () => {
    const res = await call<ErrorBody>(handle, "POST", "/auth/login", { body: { email: 42 } });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("validation_error");
    const fields = (res.body.error.details?.fields ?? []).map((f) => f.field);
    expect(fields).toContain("email");
    expect(fields).toContain("password");
    expect(JSON.stringify(res.body)).not.toMatch(/at .*\.ts:\d+/);
  });
});

describe("GET /auth/me", () => {
  test("returns the signed-in user with totp_enabled", async () => {
    const session = await loginAsAdmin(handle);
    const res = await call<typeof me>(handle, "GET", "/auth/me", { token: session.access_token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...session.user, role: "admin", email: adminEmail, totp_enabled: false });
  });

  test("401 without a token", async () => {
    const res = await call<ErrorBody>(handle, "GET", "/auth/me");
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe("unauthenticated");
  });

  test("401 for a tampered token", async () => {
    const { access_token } = await loginAsAdmin(handle);
    const [h, p, s] = access_token.split(".");
    const payload = JSON.parse(Buffer.from(p as string, "base64url").toString());
    payload.sub = crypto.randomUUID();
    const forged = `${h}.${Buffer.from(JSON.stringify(payload)).toString("base64url")}.${s}`;
    expect((await call(handle, "GET", "/auth/me", { token: forged })).status).toBe(401);
    expect((await call(handle, "GET", "/auth/me", { token: `${access_token}x` })).status).toBe(401);
  });

  test("401 for a token signed with another secret", async () => {
    const { user } = await loginAsAdmin(handle);
    const token = await new SignJWT({ org: user.org_id, typ: "access" })
      .setProtectedHeader({ alg: "HS256" })
      .setSubject(user.id)
      .setIssuedAt()
      .setExpirationTime("5m")
      .sign(new TextEncoder().encode("another secret entirely, 32 bytes"));
    expect((await call(handle, "GET", "/auth/me", { token })).status).toBe(401);
  });

  test("401 for an expired token", async () => {
    const { user } = await loginAsAdmin(handle);
    const past = Math.floor(Date.now() / 1000) - 3600;
    const token = await new SignJWT({ org: user.org_id, typ: "access" })
      .setProtectedHeader({ alg: "HS256" })
      .setSubject(user.id)
      .setIssuedAt(past - 900)
      .setExpirationTime(past)
      .sign(new TextEncoder().encode(t.config.jwtSecret));
    const res = await call<ErrorBody>(handle, "GET", "/auth/me", { token });
    expect(res.status).toBe(401);
    expect(res.body.error.message).toBe("token expired");
  });

  test("401 for a refresh token used as an access token", async () => {
    const { refresh_token } = await loginAsAdmin(handle);
    expect((await call(handle, "GET", "/auth/me", { token: refresh_token })).status).toBe(401);
  });
});

describe("POST /auth/refresh", () => {
  test("rotates: the new tokens work, the old refresh token is refused, and its reuse revokes the family", async () => {
    const first = await loginAsAdmin(handle);
    const second = await call<typeof refresh>(handle, "POST", "/auth/refresh", {
      body: { refresh_token: first.refresh_token },
    });
    expect(second.status).toBe(200);
    expect((await call(handle, "GET", "/auth/me", { token: second.body.access_token })).status).toBe(200);

    const replay = await call(handle, "POST", "/auth/refresh", {
      body: { refresh_token: first.refresh_token },
    });
    expect(replay.status).toBe(401);
    // The legitimate holder's newer token died with the family.
    const after = await call(handle, "POST", "/auth/refresh", {
      body: { refresh_token: second.body.refresh_token },
    });
    expect(after.status).toBe(401);
  });
});

test("the password hash never leaves the database", async () => {
  const [row] = await t.app.db.select().from(users).where(eq(users.email, adminEmail));
  expect(row?.passwordHash).toStartWith("$argon2id$");
  const session = await loginAsAdmin(handle);
  const meNow = await call<typeof me>(handle, "GET", "/auth/me", { token: session.access_token });
  expect(JSON.stringify([session, meNow.body])).not.toContain(row?.passwordHash as string);
});

describe("POST /auth/refresh after POST /auth/switch-org", () => {
  test("the switched session rotates in its organization, and its reuse revokes only its own family", async () => {
    const { createOrganization, addMembership } = await import("../support/app.ts");
    const orgB = await createOrganization(t, "switch-refresh");
    const first = await loginAsAdmin(handle);
    await addMembership(t, first.user.id, orgB, "developer");
    const switched = await call<typeof switchOrg>(handle, "POST", "/auth/switch-org", {
      token: first.access_token,
      body: { org_id: orgB },
    });
    expect(switched.status).toBe(200);

    const rotated = await call<typeof refresh>(handle, "POST", "/auth/refresh", {
      body: { refresh_token: switched.body.refresh_token },
    });
    expect(rotated.status).toBe(200);
    expect(rotated.body.user).toMatchObject({ org_id: orgB, role: "developer" });

    const replay = await call(handle, "POST", "/auth/refresh", {
      body: { refresh_token: switched.body.refresh_token },
    });
    expect(replay.status).toBe(401);
    const afterReplay = await call(handle, "POST", "/auth/refresh", {
      body: { refresh_token: rotated.body.refresh_token },
    });
    expect(afterReplay.status).toBe(401);

    // The sign-in it was switched from is a family of its own and lives on, in its organization.
    const original = await call<typeof refresh>(handle, "POST", "/auth/refresh", {
      body: { refresh_token: first.refresh_token },
    });
    expect(original.status).toBe(200);
    expect(original.body.user).toMatchObject({ org_id: first.user.org_id, role: "admin" });
  });
});
