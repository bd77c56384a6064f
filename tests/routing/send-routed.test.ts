// The routing decision alone (services/inference/routing.ts), with the replicas' answers scripted:
// what falls back and what does not, and what happens when no replica anywhere is in rotation.
import { expect, test } from "bun:test";
import { InFlightBalancer } from "#adapters/upstream/balancer.ts";
import { ReplicaHealth } from "#adapters/upstream/replica-health.ts";
import type { UpstreamRequest, UpstreamResponse } from "#adapters/upstream/send.ts";
import { AppError } from "#core/errors.ts";
import type { RouteTarget } from "#services/inference/port.ts";
import { sendRouted } from "#services/inference/routing.ts";

const target = (name: string): RouteTarget => ({
  deployment: { id: `id-${name}`, name },
  endpoints: [`http://${name}/v1`],
});

/** A request whose replicas answer as scripted per deployment name (from the body). */
function scripted(answers: Record<string, number | AppError>) {
  const sent: string[] = [];
  const request = {
    async send(r: Omit<UpstreamRequest, "headers">): Promise<UpstreamResponse> {
      const name = JSON.parse(r.body).model as string;
      sent.push(name);
      const answer = answers[name] ?? 200;
      if (answer instanceof AppError) throw answer;
      return {
        response: new Response(JSON.stringify({ error: { message: name } }), { status: answer }),
        endpoint: r.endpoints[0] as string,
        release() {},
      };
    },
  };
  return { request, sent };
}

const runtime = (balancer = new InFlightBalancer()) => ({
  balancer,
  timeouts: { connectMs: 100, firstByteMs: 100, firstByteStreamMs: 100 },
});

const call = (signal = new AbortController().signal) => ({
  path: "/chat/completions",
  body: (model: string) => JSON.stringify({ model }),
  signal,
  firstByteTimeoutMs: 100,
});

const context = (asked: RouteTarget, ...fallbacks: RouteTarget[]) => ({
  deployment: asked.deployment,
  endpoints: asked.endpoints,
  fallbacks,
});

test("5xx, 429, a time-out and a connection failure fall back; the first other answer is the request's", async () => {
  const { request, sent } = scripted({
    a: 500,
    b: 429,
    c: new AppError("upstream_timeout", "slow"),
    d: new AppError("upstream_error", "unreachable"),
    e: 200,
  });
  const routed = await sendRouted(
    runtime(),
    request,
    context(target("a"), target("b"), target("c"), target("d"), target("e")),
    call(),
  );
  expect(sent).toEqual(["a", "b", "c", "d", "e"]);
  expect(routed.servedBy.name).toBe("e");
});

test("a 4xx refusal is the answer: another deployment would refuse the same request", async () => {
  const { request, sent } = scripted({ a: 400 });
  const routed = await sendRouted(runtime(), request, context(target("a"), target("b")), call());
  expect(sent).toEqual(["a"]);
  expect(routed.response.status).toBe(400);
  expect(routed.servedBy.name).toBe("a");
});

test("when every deployment fails, the last failure is the caller's", async () => {
  const { request } = scripted({ a: 500, b: 429 });
  const error = await sendRouted(runtime(), request, context(target("a"), target("b")), call()).catch(
    (e: AppError) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  expect((error as AppError).code).toBe("upstream_refused");
  expect((error as AppError).details?.status).toBe(429);
});

test("the client going away does not send the request on to a fallback", async () => {
  const aborted = new AbortController();
  aborted.abort();
  const { request, sent } = scripted({ a: new AppError("upstream_error", "the client went away") });
  await expect(
    sendRouted(runtime(), request, context(target("a"), target("b")), call(aborted.signal)),
  ).rejects.toThrow("the client went away");
  expect(sent).toEqual(["a"]);
});

test("no replica anywhere: 503 deployment_unavailable", async () => {
  const { request, sent } = scripted({});
  const none = { deployment: { id: "id-a", name: "a" }, endpoints: [] };
  const error = await sendRouted(runtime(), request, context(none), call()).catch((e: AppError) => e);
  expect((error as AppError).code).toBe("unavailable");
  expect(sent).toEqual([]);
});

test("a deployment out of rotation is passed over for a fallback, and still tried when nothing else is left", async () => {
  const health = new ReplicaHealth({
    failureThreshold: 1,
    probeBaseMs: 60_000,
    probeMaxMs: 60_000,
    probe: async () => false,
  });
  try {
    const balancer = new InFlightBalancer(health);
    const a = target("a");
    health.failed(a.endpoints[0] as string);
    const withFallback = scripted({});
    const routed = await sendRouted(runtime(balancer), withFallback.request, context(a, target("b")), call());
    expect(withFallback.sent).toEqual(["b"]);
    expect(routed.servedBy.name).toBe("b");

    const alone = scripted({});
    const served = await sendRouted(runtime(balancer), alone.request, context(a), call());
    expect(alone.sent).toEqual(["a"]);
    expect(served.servedBy.name).toBe("a");
  } finally {
    health.close();
  }
});
