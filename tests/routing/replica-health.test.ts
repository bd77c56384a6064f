// Replica selection and passive health, against real HTTP servers on loopback standing in for
// replicas: fewest in flight, a replica failing K times in a row taken out of rotation, probed with a
// back-off, and brought back once it answers; a 4xx is not a failure.
import { afterAll, expect, test } from "bun:test";
import type { Server } from "bun";
import { InFlightBalancer } from "#adapters/upstream/balancer.ts";
import { probeReplica } from "#adapters/upstream/health-probe.ts";
import { ReplicaHealth } from "#adapters/upstream/replica-health.ts";
import { sendUpstream } from "#adapters/upstream/send.ts";
import { eventually } from "../orchestration/support.ts";
import { testClock } from "../support/clock.ts";

const servers: Server<unknown>[] = [];
const healths: ReplicaHealth[] = [];
afterAll(() => {
  for (const s of servers) s.stop(true);
  for (const h of healths) h.close();
});

/** A replica whose chat answer the test sets; `/v1/models` answers like the chat path's status. */
function replica(state: { status: number; hits: number }): string {
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    idleTimeout: 0,
    fetch(req) {
      if (new URL(req.url).pathname === "/v1/models") return new Response("{}", { status: state.status });
      state.hits++;
      return new Response(JSON.stringify({ ok: true }), { status: state.status });
    },
  });
  servers.push(server);
  return `http://127.0.0.1:${server.port}/v1`;
}

function healthWith(options: { failureThreshold?: number; probeBaseMs?: number } = {}) {
  const probes: string[] = [];
  const health = new ReplicaHealth({
    failureThreshold: options.failureThreshold ?? 3,
    probeBaseMs: options.probeBaseMs ?? 30,
    probeMaxMs: 200,
    probe: (endpoint) => {
      probes.push(endpoint);
      return probeReplica(endpoint, 500);
    },
  });
  healths.push(health);
  return { health, probes };
}

const send = async (balancer: InFlightBalancer, endpoints: string[]) => {
  const up = await sendUpstream(balancer, {
    endpoints,
    path: "/chat/completions",
    body: "{}",
    signal: new AbortController().signal,
    connectTimeoutMs: 1000,
    firstByteTimeoutMs: 2000,
  });
  await up.response.body?.cancel();
  up.release();
  return up;
};

test("the least busy replica is picked, not the next in turn", () => {
  const balancer = new InFlightBalancer();
  const [a, b, c] = ["http://a", "http://b", "http://c"];
  const endpoints = [a, b, c] as string[];
  balancer.acquire(a as string);
  balancer.acquire(a as string);
  balancer.acquire(b as string);
  // c has none in flight: a round robin would give a and b their turns too.
  for (let i = 0; i < 5; i++) expect(balancer.pick(endpoints)).toBe(c);
  balancer.acquire(c as string);
  balancer.acquire(c as string);
  for (let i = 0; i < 5; i++) expect(balancer.pick(endpoints)).toBe(b);
});

test("a replica failing K times in a row is taken out, probed, and brought back when it answers", async () => {
  const good = { status: 200, hits: 0 };
  const bad = { status: 500, hits: 0 };
  const endpoints = [replica(good), replica(bad)];
  const { health, probes } = healthWith({ failureThreshold: 3, probeBaseMs: 50 });
  const balancer = new InFlightBalancer(health);

  // Ties rotate, so the failing replica gets every other request until it has failed three times.
  for (let i = 0; i < 6; i++) await send(balancer, endpoints);
  expect(bad.hits).toBe(3);
  expect(health.outOfRotation()).toEqual([endpoints[1] as string]);

  good.hits = 0;
  for (let i = 0; i < 10; i++) await send(balancer, endpoints);
  expect(good.hits).toBe(10);
  expect(bad.hits).toBe(3);
  // It is probed meanwhile (GET /v1/models), with a back-off, and stays out while it answers 500.
  await eventually(async () => (probes.length >= 2 ? true : undefined), 5000);
  expect(health.outOfRotation()).toHaveLength(1);

  bad.status = 200;
  await eventually(async () => (health.outOfRotation().length === 0 ? true : undefined), 5000);
  for (let i = 0; i < 10; i++) await send(balancer, endpoints);
  expect(bad.hits).toBeGreaterThanOrEqual(3 + 4);
});

test("failures must be in a row: an answer in between starts the count again", async () => {
  const flaky = { status: 500, hits: 0 };
  const endpoints = [replica(flaky)];
  const { health } = healthWith({ failureThreshold: 3 });
  const balancer = new InFlightBalancer(health);
  await send(balancer, endpoints);
  await send(balancer, endpoints);
  flaky.status = 200;
  await send(balancer, endpoints);
  flaky.status = 500;
  await send(balancer, endpoints);
  await send(balancer, endpoints);
  expect(health.outOfRotation()).toEqual([]);
  await send(balancer, endpoints);
  expect(health.outOfRotation()).toEqual(endpoints);
});

test("a replica's 4xx (a refusal of the request, a 429) is not a failure", async () => {
  const refusing = { status: 400, hits: 0 };
  const endpoints = [replica(refusing)];
  const { health } = healthWith({ failureThreshold: 2 });
  const balancer = new InFlightBalancer(health);
  for (let i = 0; i < 4; i++) await send(balancer, endpoints);
  refusing.status = 429;
  for (let i = 0; i < 4; i++) await send(balancer, endpoints);
  expect(health.outOfRotation()).toEqual([]);
});

test("a replica that refuses connections or does not answer in time counts as failing", async () => {
  const hanging = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    idleTimeout: 0,
    fetch: () => new Promise<Response>(() => {}),
  });
  servers.push(hanging);
  const slow = `http://127.0.0.1:${hanging.port}/v1`;
  const dead = "http://127.0.0.1:9/v1";
  const { health } = healthWith({ failureThreshold: 2, probeBaseMs: 60_000 });
  const balancer = new InFlightBalancer(health);
  const attempt = (endpoint: string) =>
    sendUpstream(balancer, {
      endpoints: [endpoint],
      path: "/chat/completions",
      body: "{}",
      signal: new AbortController().signal,
      connectTimeoutMs: 500,
      firstByteTimeoutMs: 100,
    }).catch((error: Error) => error);
  for (let i = 0; i < 2; i++) {
    await attempt(slow);
    await attempt(dead);
  }
  expect(health.outOfRotation().sort()).toEqual([dead, slow].sort());
});

test("when every replica is out of rotation the least busy is still tried, not none", () => {
  const { health } = healthWith({ failureThreshold: 1, probeBaseMs: 60_000 });
  const balancer = new InFlightBalancer(health);
  const endpoints = ["http://a", "http://b"];
  health.failed("http://a");
  expect(balancer.pick(endpoints)).toBe("http://b");
  expect(balancer.inRotation(endpoints)).toEqual(["http://b"]);
  health.failed("http://b");
  expect(balancer.inRotation(endpoints)).toEqual([]);
  balancer.acquire("http://a");
  expect(balancer.pick(endpoints)).toBe("http://b");
});

test("a replica out of rotation that no request asks for any more is forgotten, not probed forever", async () => {
  // A clock that moves only when the test moves it: how long a replica went unasked is the test's to say,
  // not the loaded machine's (a probe timer firing late no longer makes the wanted one look forgotten).
  const clock = testClock(() => 0);
  const forgotten: string[] = [];
  let probes = 0;
  const forgot = Promise.withResolvers<void>();
  const probedThrice = Promise.withResolvers<void>();
  const health = new ReplicaHealth({
    failureThreshold: 1,
    probeBaseMs: 40,
    probeMaxMs: 40,
    forgetAfterMs: 100,
    now: clock.now,
    probe: async () => {
      if (++probes === 3) probedThrice.resolve();
      return false;
    },
    onForget: (endpoint) => {
      forgotten.push(endpoint);
      forgot.resolve();
    },
  });
  healths.push(health);
  health.failed("http://removed");
  health.failed("http://wanted");
  // 400 ms go by in which requests ask for one of the two only.
  clock.advance(400);
  health.isOut("http://wanted");
  await forgot.promise;
  await probedThrice.promise;
  expect(forgotten).toEqual(["http://removed"]);
  expect(health.outOfRotation()).toEqual(["http://wanted"]);
  expect(probes).toBeGreaterThan(2);
});
