// The sign-in throttle: per e-mail (known or not) slower, then locked; per client address, 20 attempts a
// minute across every e-mail; counted before any password is checked, refused with 429 and Retry-After.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { asc, eq } from "drizzle-orm";
import { auditLogs } from "#db/schema/index.ts";
import { buildHttpGateway } from "#routes/gateways.ts";
import { clientAddress, parseTrustedProxies } from "#server/client-address.ts";
import { listen } from "#server/http/listen.ts";
import type { Listener } from "#server/start/platform.ts";
import { addressThrottle, loginThrottle, nextAttempt } from "#services/auth/login-throttle.ts";
import {
  adminEmail,
  adminPassword,
  call,
  createUser,
  type Handler,
  startTestApp,
  type TestApp,
} from "../support/app.ts";
import { startGateway } from "../support/callers.ts";

/** A throttled sign-in's answer: the error envelope, whose details say how long to wait. */
interface ThrottledBody {
  error: { code: string; details: { retry_after_s: number } };
}

describe("the policy", () => {
  const t0 = new Date("2030-01-01T00:00:00Z");
  const at = (ms: number) => new Date(t0.getTime() + ms);

  test("five attempts back to back, then waits of 1, 2, 4, 8 and 16 s, and the tenth locks for 15 minutes", () => {
    let state: Parameters<typeof nextAttempt>[0];
    let now = t0;
    const waits: number[] = [];
    for (let n = 1; n <= 10; n++) {
      const next = nextAttempt(state, now);
      if (!next.allowed) throw new Error(`attempt ${n} refused`);
      state = next.state;
      expect(state.attempts).toBe(n);
      waits.push(state.notBefore.getTime() - now.getTime());
      now = state.notBefore;
    }
    expect(waits).toEqual([0, 0, 0, 0, 1000, 2000, 4000, 8000, 16000, loginThrottle.lockMs]);
  });

  test("an attempt before the wait is over is refused, and does not count", () => {
    const state = { attempts: 6, lastAttemptAt: t0, notBefore: at(2000) };
    expect(nextAttempt(state, at(1999))).toEqual({ allowed: false });
    const next = nextAttempt(state, at(2000));
    expect(next.allowed && next.state.attempts).toBe(7);
  });

  test("the count starts again after a quiet window, which the lock outlasts", () => {
    const locked = { attempts: 10, lastAttemptAt: t0, notBefore: at(loginThrottle.lockMs) };
    expect(nextAttempt(locked, at(loginThrottle.lockMs - 1)).allowed).toBe(false);
    const after = nextAttempt(locked, at(loginThrottle.lockMs));
    expect(after.allowed && after.state.attempts).toBe(1);
  });
});

describe("POST /auth/login under repeated failures", () => {
  let t: TestApp;
  let handle: Handler;
  let now: number;
  const advance = (ms: number) => {
    now += ms;
  };

  beforeAll(async () => {
    ({ t, handle } = await startGateway("filtration"));
    now = Date.now();
    t.app.clock = () => new Date(now);
  }, 60_000);
  afterAll(() => t.close());

  const attempt = <R = unknown>(email: string, password: string) =>
    call<R>(handle, "POST", "/auth/login", { body: { email, password } });

  /** Wrong passwords, each after its wait, until the e-mail is locked: nine 401s, then the lock. */
  async function lockOut(email: string, before = 0) {
    for (let n = before + 1; n <= loginThrottle.lockAtAttempt; n++) {
      const res = await attempt(email, "wrong password");
      expect(res.status).toBe(401);
      advance(20_000);
    }
  }

  test("a locked account refuses even the right password: 429 with Retry-After, nothing checked", async () => {
    await createUser(t, handle, "locked@example.com", "developer");
    await lockOut("locked@example.com");
    const right = await attempt<ThrottledBody>("locked@example.com", adminPassword);
    expect(right.status).toBe(429);
    expect(right.body.error.code).toBe("rate_limit_exceeded");
    const retryAfter = Number(right.headers.get("retry-after"));
    // 15 minutes from the locking attempt, 20 s ago.
    expect(retryAfter).toBe(loginThrottle.lockMs / 1000 - 20);
    expect(right.body.error.details).toEqual({ retry_after_s: retryAfter });
  }, 60_000);

  test("the lock ends after 15 minutes", async () => {
    await createUser(t, handle, "patient@example.com", "viewer");
    await lockOut("patient@example.com");
    advance(loginThrottle.lockMs - 60_000);
    expect((await attempt("patient@example.com", adminPassword)).status).toBe(429);
    advance(60_000);
    expect((await attempt("patient@example.com", adminPassword)).status).toBe(200);
  }, 60_000);

  test("during a wait the right password is refused too; afterwards it works and clears the count", async () => {
    await createUser(t, handle, "slow@example.com", "viewer");
    for (let n = 1; n <= loginThrottle.freeAttempts; n++)
      expect((await attempt("slow@example.com", "nope")).status).toBe(401);
    const early = await attempt("slow@example.com", adminPassword);
    expect(early.status).toBe(429);
    expect(early.headers.get("retry-after")).toBe("1");
    advance(1000);
    expect((await attempt("slow@example.com", adminPassword)).status).toBe(200);
    // Cleared: five more mistakes are allowed back to back again.
    for (let n = 1; n <= loginThrottle.freeAttempts; n++)
      expect((await attempt("slow@example.com", "nope")).status).toBe(401);
    advance(1000);
    expect((await attempt("slow@example.com", adminPassword)).status).toBe(200);
  }, 60_000);

  test("an unknown e-mail locks the same way, so the lock tells nothing about which e-mails exist", async () => {
    await createUser(t, handle, "known@example.com", "viewer");
    // Side by side, so both locks end at the same moment and the answers can be compared whole.
    for (let n = 1; n <= loginThrottle.lockAtAttempt; n++) {
      expect((await attempt("known@example.com", "wrong")).status).toBe(401);
      expect((await attempt("unknown@example.com", "wrong")).status).toBe(401);
      advance(20_000);
    }
    const known = await attempt("known@example.com", adminPassword);
    const unknown = await attempt("unknown@example.com", adminPassword);
    expect(known.status).toBe(429);
    expect(unknown.status).toBe(429);
    expect(known.body).toEqual(unknown.body);
  }, 60_000);

  test("20 parallel wrong guesses: exactly 5 checked, the other 15 refused with 429 unchecked", async () => {
    await createUser(t, handle, "burst@example.com", "viewer");
    advance(60 * 60_000);
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => attempt("burst@example.com", "guess")),
    );
    expect(answers.filter((a) => a.status === 401)).toHaveLength(loginThrottle.freeAttempts);
    const refused = answers.filter((a) => a.status === 429);
    expect(refused).toHaveLength(20 - loginThrottle.freeAttempts);
    expect(refused.every((a) => Number(a.headers.get("retry-after")) >= 1)).toBe(true);
    const rows = await t.app.db.select().from(auditLogs).where(eq(auditLogs.actorLabel, "burst@example.com"));
    const reasons = rows.map((r) => r.details.reason).filter(Boolean);
    expect(reasons.filter((r) => r === "wrong_password")).toHaveLength(loginThrottle.freeAttempts);
    expect(reasons.filter((r) => r === "locked")).toHaveLength(20 - loginThrottle.freeAttempts);
  }, 60_000);

  test("at most 100 failures an hour on one account (ASVS 2.2.1), however they are paced", async () => {
    advance(60 * 60_000);
    const hourEnds = now + 60 * 60_000;
    let checked = 0;
    // A patient attacker: every attempt as soon as the throttle allows it.
    while (now < hourEnds) {
      const res = await attempt("hourly@example.com", "guess");
      if (res.status === 401) checked++;
      advance(res.status === 429 ? Number(res.headers.get("retry-after")) * 1000 : 1);
    }
    expect(checked).toBeLessThanOrEqual(100);
    expect(checked).toBeGreaterThanOrEqual(loginThrottle.lockAtAttempt);
  }, 120_000);

  test("the e-mail is counted in its normalised form", async () => {
    await createUser(t, handle, "cased@example.com", "viewer");
    for (let n = 1; n <= loginThrottle.lockAtAttempt; n++) {
      await attempt(n % 2 ? " CASED@example.com" : "cased@EXAMPLE.com ", "wrong");
      advance(20_000);
    }
    expect((await attempt("cased@example.com", adminPassword)).status).toBe(429);
  }, 60_000);

  test("every attempt is audited as auth.login with the e-mail, and the organization when known", async () => {
    const user = await createUser(t, handle, "audited@example.com", "viewer");
    advance(60 * 60_000);
    await attempt("audited@example.com", "guess-0xBEEF");
    await attempt("audited@example.com", adminPassword);
    await attempt("ghost@example.com", "guess-0xBEEF");
    const rows = await t.app.db
      .select()
      .from(auditLogs)
      .where(eq(auditLogs.action, "auth.login"))
      .orderBy(asc(auditLogs.createdAt));
    const mine = rows.filter((r) => r.actorLabel === "audited@example.com");
    // The createUser sign-in, the wrong password, the right one.
    expect(mine.map((r) => r.outcome)).toEqual(["success", "failure", "success"]);
    expect(mine.every((r) => r.orgId === user.user.org_id && r.actorId === user.user.id)).toBe(true);
    expect(mine[1]?.details).toEqual({ reason: "wrong_password" });
    const ghost = rows.filter((r) => r.actorLabel === "ghost@example.com");
    expect(ghost).toHaveLength(1);
    expect(ghost[0]).toMatchObject({ outcome: "failure", orgId: null, actorId: null });
    expect(JSON.stringify(rows)).not.toContain(adminPassword);
    expect(JSON.stringify(rows)).not.toContain("0xBEEF");
  }, 60_000);
});

describe("per client address (a real socket)", () => {
  let t: TestApp;
  let direct: Listener;
  let proxied: Listener;
  let now: number;

  beforeAll(async () => {
    t = await startTestApp();
    now = Date.now();
    t.app.clock = () => new Date(now);
    direct = listen(t.app, "filtration", 0, await buildHttpGateway(t.app, "filtration"));
    // The same platform behind a proxy the operator trusts (TRUSTED_PROXIES=127.0.0.1).
    const behindProxy = { ...t.app, config: { ...t.app.config, trustedProxies: ["127.0.0.1"] } };
    proxied = listen(t.app, "filtration", 0, await buildHttpGateway(behindProxy, "filtration"));
  }, 60_000);
  afterAll(async () => {
    await direct?.stop(1000);
    await proxied?.stop(1000);
    await t?.close();
  });

  const attempt = (port: number, email: string, password: string, forwardedFor?: string) =>
    fetch(`http://127.0.0.1:${port}/auth/login`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        ...(forwardedFor ? { "x-forwarded-for": forwardedFor } : {}),
      },
      body: JSON.stringify({ email, password }),
    });

  test("20 attempts a minute from one address across different accounts, then 429 even for a right password", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < addressThrottle.lockAtAttempt; i++) {
      // X-Forwarded-For from an untrusted peer is ignored: a new value each time changes nothing.
      const res = await attempt(direct.port, `spray${i}@example.com`, "Summer2026!", `10.9.8.${i}`);
      statuses.push(res.status);
    }
    expect(statuses).toEqual(Array(addressThrottle.lockAtAttempt).fill(401));
    const refused = await attempt(direct.port, adminEmail, adminPassword);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBe(60);
    now += addressThrottle.lockMs;
    expect((await attempt(direct.port, adminEmail, adminPassword)).status).toBe(200);
  }, 60_000);

  test("behind a trusted proxy, each forwarded client is counted apart", async () => {
    now += 60 * 60_000;
    const statuses: number[] = [];
    for (let i = 0; i <= addressThrottle.lockAtAttempt; i++) {
      const res = await attempt(proxied.port, `other${i}@example.com`, "guess", `203.0.113.${i}`);
      statuses.push(res.status);
    }
    expect(statuses.every((s) => s === 401)).toBe(true);
    // One forwarded client over its limit is refused, whatever it writes to the left of the header.
    for (let i = 0; i < addressThrottle.lockAtAttempt; i++) {
      await attempt(proxied.port, `again${i}@example.com`, "guess", `1.2.3.${i}, 198.51.100.7`);
    }
    expect((await attempt(proxied.port, "fresh@example.com", "guess", "198.51.100.7")).status).toBe(429);
  }, 60_000);
});

test("the client address: the socket's, or X-Forwarded-For read right to left through trusted hops", () => {
  const trusted = parseTrustedProxies(["127.0.0.1", "10.0.0.0/8"]);
  expect(clientAddress("198.51.100.1", "1.1.1.1", trusted)).toBe("198.51.100.1");
  expect(clientAddress("127.0.0.1", "1.1.1.1, 203.0.113.9", trusted)).toBe("203.0.113.9");
  expect(clientAddress("127.0.0.1", "1.1.1.1, 203.0.113.9, 10.1.2.3", trusted)).toBe("203.0.113.9");
  expect(clientAddress("::ffff:127.0.0.1", "203.0.113.9", trusted)).toBe("203.0.113.9");
  expect(clientAddress("127.0.0.1", "not an address", trusted)).toBe("127.0.0.1");
  expect(clientAddress("::ffff:198.51.100.1", null, [])).toBe("198.51.100.1");
  expect(() => parseTrustedProxies(["10.0.0.0/99"])).toThrow();
});
