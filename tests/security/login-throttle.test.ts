// The lockout: slower, then locked, per e-mail, known or not, and answered like a wrong password.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { asc, eq } from "drizzle-orm";
import { auditLogs } from "../../db/schema/index.ts";
import { loginThrottle, nextAttempt } from "../../services/auth/login-throttle.ts";
import {
  adminEmail,
  adminPassword,
  call,
  createUser,
  gatewayHandler,
  type Handler,
  startTestApp,
  type TestApp,
} from "../support/app.ts";

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
    t = await startTestApp();
    handle = (await gatewayHandler(t.app, "filtration")).handle;
    now = Date.now();
    t.app.clock = () => new Date(now);
  }, 60_000);
  afterAll(() => t.close());

  const attempt = (email: string, password: string) =>
    call(handle, "POST", "/auth/login", { body: { email, password } });

  /** Ten wrong passwords, each after its wait: the e-mail is then locked. */
  async function lockOut(email: string) {
    for (let n = 1; n <= loginThrottle.lockAtAttempt; n++) {
      const res = await attempt(email, "wrong password");
      expect(res.status).toBe(401);
      advance(20_000);
    }
  }

  test("a locked account refuses even the right password, with the answer of a wrong one", async () => {
    await createUser(t, handle, "locked@example.com", "developer");
    const wrong = await attempt("locked@example.com", "not it");
    await lockOut("locked@example.com");
    const right = await attempt("locked@example.com", adminPassword);
    expect(right.status).toBe(401);
    expect(right.body).toEqual(wrong.body);
    expect(right.body.error.code).toBe("unauthenticated");
  }, 30_000);

  test("the lock ends after 15 minutes", async () => {
    await createUser(t, handle, "patient@example.com", "viewer");
    await lockOut("patient@example.com");
    advance(loginThrottle.lockMs - 60_000);
    expect((await attempt("patient@example.com", adminPassword)).status).toBe(401);
    advance(60_000);
    expect((await attempt("patient@example.com", adminPassword)).status).toBe(200);
  }, 30_000);

  test("during a wait the right password is refused too; afterwards it works and clears the count", async () => {
    await createUser(t, handle, "slow@example.com", "viewer");
    for (let n = 1; n <= loginThrottle.freeAttempts; n++)
      expect((await attempt("slow@example.com", "nope")).status).toBe(401);
    expect((await attempt("slow@example.com", adminPassword)).status).toBe(401);
    advance(1000);
    expect((await attempt("slow@example.com", adminPassword)).status).toBe(200);
    // Cleared: five more mistakes are allowed back to back again.
    for (let n = 1; n <= loginThrottle.freeAttempts; n++)
      expect((await attempt("slow@example.com", "nope")).status).toBe(401);
    advance(1000);
    expect((await attempt("slow@example.com", adminPassword)).status).toBe(200);
  }, 30_000);

  test("an unknown e-mail locks the same way, so the lock tells nothing about which e-mails exist", async () => {
    await createUser(t, handle, "known@example.com", "viewer");
    await lockOut("known@example.com");
    await lockOut("unknown@example.com");
    const known = await attempt("known@example.com", adminPassword);
    const unknown = await attempt("unknown@example.com", adminPassword);
    expect(known.status).toBe(unknown.status);
    expect(known.body).toEqual(unknown.body);
  }, 30_000);

  test("a refused attempt takes about as long as checking a password", async () => {
    await createUser(t, handle, "timing@example.com", "viewer");
    await lockOut("timing@example.com");
    const time = async (email: string) => {
      const start = performance.now();
      await attempt(email, "some guess");
      return performance.now() - start;
    };
    const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
    const locked: number[] = [];
    const checked: number[] = [];
    for (let i = 0; i < 5; i++) {
      locked.push(await time("timing@example.com"));
      checked.push(await time(adminEmail));
      advance(60 * 60_000); // keep the admin's own count from throttling it
    }
    // Without the dummy hash a refusal would take a few milliseconds against tens for argon2.
    expect(median(locked)).toBeGreaterThan(median(checked) * 0.3);
  }, 30_000);

  test("a burst of parallel guesses gets no more checks than guesses one after another", async () => {
    await createUser(t, handle, "burst@example.com", "viewer");
    advance(60 * 60_000);
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => attempt("burst@example.com", "guess")),
    );
    expect(answers.every((a) => a.status === 401)).toBe(true);
    const rows = await t.app.db.select().from(auditLogs).where(eq(auditLogs.actorLabel, "burst@example.com"));
    const reasons = rows.map((r) => r.details.reason).filter(Boolean);
    expect(reasons.filter((r) => r === "wrong_password")).toHaveLength(loginThrottle.freeAttempts);
    expect(reasons.filter((r) => r === "locked")).toHaveLength(20 - loginThrottle.freeAttempts);
  }, 30_000);

  test("the e-mail is counted in its normalised form", async () => {
    await createUser(t, handle, "cased@example.com", "viewer");
    for (let n = 1; n <= loginThrottle.lockAtAttempt; n++) {
      await attempt(n % 2 ? " CASED@example.com" : "cased@EXAMPLE.com ", "wrong");
      advance(20_000);
    }
    expect((await attempt("cased@example.com", adminPassword)).status).toBe(401);
  }, 30_000);

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
  }, 30_000);
});
