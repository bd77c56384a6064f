// Two-factor sign-in, checked against an independent TOTP implementation: oathtool (Debian package
// `oathtool`, installed by CI), so a bug shared by otplib's generator and verifier cannot hide.
// Without oathtool, the codes come from the RFC 6238 reference in tests/support/totp-codes.ts.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { users } from "#db/schema/index.ts";
import type { POST as loginRoute } from "#routes/filtration/auth/login.ts";
import type { GET as meRoute } from "#routes/filtration/auth/me.ts";
import type { POST as disableRoute } from "#routes/filtration/auth/totp/disable.ts";
import type { POST as setupRoute } from "#routes/filtration/auth/totp/setup.ts";
import type { POST as verifyRoute } from "#routes/filtration/auth/totp/verify.ts";
import {
  adminPassword,
  call,
  createUser,
  type ErrorBody,
  gatewayHandler,
  type Handler,
  type TestApp,
} from "../support/app.ts";
import { startGateway } from "../support/callers.ts";
import { oathtoolAvailable, rfc6238, oathtool as runOathtool, totpCode } from "../support/totp-codes.ts";

const oathtool = totpCode;

let t: TestApp;
let handle: Handler;
/** The platform's clock, in seconds; moved by the tests, so codes of later steps need no waiting. */
let now: number;

beforeAll(async () => {
  ({ t, handle } = await startGateway("filtration"));
  now = Math.floor(Date.now() / 30_000) * 30 + 5; // early in a step
  t.app.clock = () => new Date(now * 1000);
}, 60_000);
afterAll(() => t.close());

const login = <R = unknown>(email: string, totp_code?: string) =>
  call<R>(handle, "POST", "/auth/login", {
    body: { email, password: adminPassword, ...(totp_code ? { totp_code } : {}) },
  });

/** A signed-in user with two-factor set up and enabled; returns the secret. */
async function enrolled(email: string) {
  const session = await createUser(t, handle, email, "developer");
  const setup = await call<typeof setupRoute>(handle, "POST", "/auth/totp/setup", {
    token: session.access_token,
  });
  expect(setup.status).toBe(200);
  const verify = await call(handle, "POST", "/auth/totp/verify", {
    token: session.access_token,
    body: { code: oathtool(setup.body.secret, now) },
  });
  expect(verify.status).toBe(200);
  return { session, secret: setup.body.secret };
}

describe("the codes these tests compute", () => {
  test("follow RFC 6238's test vectors (SHA-1, 8 digits)", () => {
    const secret = "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ"; // ASCII "12345678901234567890"
    const vectors: [number, string][] = [
      [59, "94287082"],
      [1111111109, "07081804"],
      [1111111111, "14050471"],
      [1234567890, "89005924"],
      [2000000000, "69279037"],
      [20000000000, "65353130"],
    ];
    for (const [time, code] of vectors) expect(rfc6238(secret, time, 8)).toBe(code);
    if (oathtoolAvailable) {
      for (const [time, code] of vectors) expect(runOathtool(secret, time)).toBe(code.slice(-6));
    }
  });
});

describe("setting up two-factor sign-in", () => {
  test("setup returns a base32 secret and an otpauth URL, and stores the secret sealed", async () => {
    const session = await createUser(t, handle, "setup@example.com", "viewer");
    const res = await call<typeof setupRoute>(handle, "POST", "/auth/totp/setup", {
      token: session.access_token,
    });
    expect(res.status).toBe(200);
    expect(res.body.secret).toMatch(/^[A-Z2-7]{32}$/);
    const url = new URL(res.body.otpauth_url);
    expect(url.protocol).toBe("otpauth:");
    expect(url.host).toBe("totp");
    expect(url.searchParams.get("secret")).toBe(res.body.secret);
    expect(decodeURIComponent(url.pathname)).toContain("setup@example.com");
    const [row] = await t.app.db.select().from(users).where(eq(users.email, "setup@example.com"));
    expect(row?.totpSecret).toStartWith("v1.");
    expect(row?.totpSecret).not.toContain(res.body.secret);
    expect(row?.totpEnabled).toBe(false);
    // Not in force until verified: sign-in still needs no code.
    expect((await login("setup@example.com")).status).toBe(200);
  });

  test("verify refuses a wrong code, accepts oathtool's, and /auth/me then says so", async () => {
    const session = await createUser(t, handle, "verify@example.com", "viewer");
    const { body } = await call<typeof setupRoute>(handle, "POST", "/auth/totp/setup", {
      token: session.access_token,
    });
    const right = oathtool(body.secret, now);
    const wrong = right === "000000" ? "111111" : "000000";
    const bad = await call<ErrorBody>(handle, "POST", "/auth/totp/verify", {
      token: session.access_token,
      body: { code: wrong },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details?.fields?.[0]?.field).toBe("code");
    const good = await call<typeof verifyRoute>(handle, "POST", "/auth/totp/verify", {
      token: session.access_token,
      body: { code: right },
    });
    expect(good.status).toBe(200);
    expect(good.body).toEqual({ totp_enabled: true });
    const me = await call<typeof meRoute>(handle, "GET", "/auth/me", { token: session.access_token });
    expect(me.body.totp_enabled).toBe(true);
  });

  test("verify before setup, and setup while enabled, are 409", async () => {
    const session = await createUser(t, handle, "order@example.com", "viewer");
    const early = await call(handle, "POST", "/auth/totp/verify", {
      token: session.access_token,
      body: { code: "123456" },
    });
    expect(early.status).toBe(409);
    const { session: on } = await enrolled("order2@example.com");
    expect((await call(handle, "POST", "/auth/totp/setup", { token: on.access_token })).status).toBe(409);
  });

  test("a code of the wrong shape is 400; without a token all three are 401", async () => {
    const session = await createUser(t, handle, "shape@example.com", "viewer");
    const res = await call(handle, "POST", "/auth/totp/verify", {
      token: session.access_token,
      body: { code: "12ab56" },
    });
    expect(res.status).toBe(400);
    for (const path of ["/auth/totp/setup", "/auth/totp/verify", "/auth/totp/disable"]) {
      expect((await call(handle, "POST", path, { body: { code: "123456" } })).status).toBe(401);
    }
  });
});

describe("signing in with two-factor on", () => {
  test("without a code: 401 totp_required; with a wrong password the answer does not mention TOTP", async () => {
    await enrolled("needs@example.com");
    const res = await login<ErrorBody>("needs@example.com");
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe("totp_required");
    const wrong = await call<ErrorBody>(handle, "POST", "/auth/login", {
      body: { email: "needs@example.com", password: "not the password", totp_code: "123456" },
    });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error.code).toBe("unauthenticated");
  });

  test("a current code from oathtool signs in", async () => {
    const { secret } = await enrolled("signs@example.com");
    now += 30;
    const res = await login<typeof loginRoute>("signs@example.com", oathtool(secret, now));
    expect(res.status).toBe(200);
    expect(res.body.user.email).toBe("signs@example.com");
  });

  test("a code is accepted once: the code that enabled it, and a code used to sign in, are refused again", async () => {
    const { secret } = await enrolled("replay@example.com");
    const enabling = oathtool(secret, now);
    const again = await login<ErrorBody>("replay@example.com", enabling);
    expect(again.status).toBe(401);
    expect(again.body.error.code).toBe("totp_required");
    now += 30;
    const code = oathtool(secret, now);
    expect((await login("replay@example.com", code)).status).toBe(200);
    const replay = await login<ErrorBody>("replay@example.com", code);
    expect(replay.status).toBe(401);
    expect(replay.body.error.code).toBe("totp_required");
    // The older code is still inside the tolerance window, but older than the last one accepted.
    expect((await login("replay@example.com", enabling)).status).toBe(401);
  });

  test("of two sign-ins racing with one code, exactly one succeeds", async () => {
    const { secret } = await enrolled("race@example.com");
    now += 30;
    const code = oathtool(secret, now);
    const answers = await Promise.all([login("race@example.com", code), login("race@example.com", code)]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 401]);
  });

  test("a code from one step back or ahead (clock drift) is accepted; two steps away is not", async () => {
    const { secret } = await enrolled("drift@example.com");
    now += 90;
    expect((await login("drift@example.com", oathtool(secret, now - 60))).status).toBe(401);
    expect((await login("drift@example.com", oathtool(secret, now - 30))).status).toBe(200);
    expect((await login("drift@example.com", oathtool(secret, now + 60))).status).toBe(401);
    expect((await login("drift@example.com", oathtool(secret, now + 30))).status).toBe(200);
  });
});

describe("disabling two-factor sign-in", () => {
  test("needs a fresh, right code; afterwards sign-in needs none", async () => {
    const { session, secret } = await enrolled("off@example.com");
    const reused = await call(handle, "POST", "/auth/totp/disable", {
      token: session.access_token,
      body: { code: oathtool(secret, now) },
    });
    expect(reused.status).toBe(400);
    now += 30;
    const res = await call<typeof disableRoute>(handle, "POST", "/auth/totp/disable", {
      token: session.access_token,
      body: { code: oathtool(secret, now) },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ totp_enabled: false });
    expect((await login("off@example.com")).status).toBe(200);
    const [row] = await t.app.db.select().from(users).where(eq(users.email, "off@example.com"));
    expect(row?.totpSecret).toBeNull();
    const twice = await call(handle, "POST", "/auth/totp/disable", {
      token: session.access_token,
      body: { code: "123456" },
    });
    expect(twice.status).toBe(409);
  });

  test("guessing codes counts toward the sign-in lockout", async () => {
    const { session } = await enrolled("guesser@example.com");
    for (let i = 0; i < 10; i++) {
      const res = await call(handle, "POST", "/auth/totp/disable", {
        token: session.access_token,
        body: { code: String(100000 + i) },
      });
      expect(res.status).toBe(400);
      now += 20;
    }
    // Locked: even the right password and a current code are refused, unchecked, until the lock ends.
    const res = await login<ErrorBody>("guesser@example.com", "000000");
    expect(res.status).toBe(429);
    expect(res.body.error.code).toBe("rate_limit_exceeded");
  });

  test("setup, enable and disable are audited without the secret", async () => {
    const { session, secret } = await enrolled("audit-totp@example.com");
    now += 30;
    await call(handle, "POST", "/auth/totp/disable", {
      token: session.access_token,
      body: { code: oathtool(secret, now) },
    });
    const { auditLogs } = await import("#db/schema/index.ts");
    const rows = await t.app.db
      .select()
      .from(auditLogs)
      .where(eq(auditLogs.actorLabel, "audit-totp@example.com"));
    const actions = rows.filter((r) => r.outcome === "success").map((r) => r.action);
    expect(actions).toEqual(
      expect.arrayContaining(["auth.totp.setup", "auth.totp.enable", "auth.totp.disable"]),
    );
    expect(JSON.stringify(rows)).not.toContain(secret);
  });
});

describe("the dashboard's sign-in form", () => {
  test("asks for the code on a second step when two-factor is on, and signs in with it", async () => {
    const { secret } = await enrolled("dash@example.com");
    const dashboard = (await gatewayHandler(t.app, "dashboard")).handle;
    const post = (path: string, fields: Record<string, string>, cookie = "") =>
      dashboard(
        new Request(`http://localhost${path}`, {
          method: "POST",
          // The form's CSRF token, as the sign-in page would have issued it.
          headers: {
            "content-type": "application/x-www-form-urlencoded",
            cookie: `llmp_csrf=form-token${cookie ? `; ${cookie}` : ""}`,
          },
          body: new URLSearchParams({ ...fields, _csrf: "form-token" }).toString(),
        }),
      );
    const first = await post("/login", {
      email: "dash@example.com",
      password: adminPassword,
      next: "/pools",
    });
    expect(first.status).toBe(303);
    expect(first.headers.get("location")).toBe("/login/verify?next=%2Fpools");
    const pending = first.headers.getSetCookie().find((c) => c.startsWith("llmp_2fa=")) ?? "";
    expect(pending).toContain("HttpOnly");
    expect(pending).toContain("SameSite=Strict");
    expect(first.headers.getSetCookie().some((c) => c.startsWith("llmp_session="))).toBe(false);
    const token = pending.split(";")[0] as string;

    const wrong = await post("/login/verify", { totp_code: "000000", next: "/pools" }, token);
    expect(wrong.status).toBe(401);
    expect(await wrong.text()).toContain("wrong, expired or already used");
    // The code alone, without step one's token, signs nobody in.
    now += 30;
    const alone = await post("/login/verify", { totp_code: oathtool(secret, now), next: "/pools" });
    expect(alone.status).toBe(303);
    expect(alone.headers.get("location")).toStartWith("/login");
    expect(alone.headers.getSetCookie().some((c) => c.startsWith("llmp_session="))).toBe(false);
    // A forged token starts over.
    const forged = await post(
      "/login/verify",
      { totp_code: oathtool(secret, now) },
      "llmp_2fa=eyJhbGciOiJIUzI1NiJ9.e30.x",
    );
    expect(forged.headers.get("location")).toStartWith("/login?expired=1");

    const withCode = await post("/login/verify", { totp_code: oathtool(secret, now), next: "/pools" }, token);
    expect(withCode.status).toBe(303);
    expect(withCode.headers.get("location")).toBe("/pools");
    const cookies = withCode.headers.getSetCookie();
    expect(cookies.some((c) => c.startsWith("llmp_session="))).toBe(true);
    expect(cookies.some((c) => c.startsWith("llmp_2fa=;") && c.includes("Max-Age=0"))).toBe(true);
  });
});
