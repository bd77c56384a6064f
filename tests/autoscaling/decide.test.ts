// The decision rules of services/orchestration/autoscaling/decide.ts, without a clock or a provider.
import { expect, test } from "bun:test";
import { decide, type Window } from "#services/orchestration/autoscaling/decide.ts";
import { withDefaults } from "#services/orchestration/autoscaling/defaults.ts";

const policy = withDefaults({
  min_replicas: 0,
  max_replicas: 4,
  target_in_flight_per_replica: 4,
  scale_up_delay_s: 10,
  scale_down_delay_s: 60,
});
const load = (inFlight: number, queued = 0, tokensPerSecond = 0) => ({ inFlight, queued, tokensPerSecond });

test("a scale-up waits for its delay, then says why with the figures", () => {
  const window: Window = {};
  const at = (s: number, current = 2) =>
    decide({ policy, current, load: load(12), nowMs: s * 1000, window, bounds: {} });
  expect(at(0)).toEqual({ kind: "none" });
  expect(at(9)).toEqual({ kind: "none" });
  expect(at(10)).toEqual({
    kind: "scale",
    to: 3,
    reason: "scaled up from 2 to 3: 12 in flight over 2 replicas, target 4",
  });
});

test("a dip restarts the scale-up delay", () => {
  const window: Window = {};
  decide({ policy, current: 2, load: load(12), nowMs: 0, window, bounds: {} });
  decide({ policy, current: 2, load: load(4), nowMs: 5000, window, bounds: {} });
  expect(decide({ policy, current: 2, load: load(12), nowMs: 12_000, window, bounds: {} }).kind).toBe("none");
  expect(decide({ policy, current: 2, load: load(12), nowMs: 22_000, window, bounds: {} }).kind).toBe(
    "scale",
  );
});

test("from zero it scales at once, for the requests waiting", () => {
  expect(decide({ policy, current: 0, load: load(0, 3), nowMs: 0, window: {}, bounds: {} })).toEqual({
    kind: "scale",
    to: 1,
    reason: "scaled up from 0 to 1: 3 requests waiting at zero replicas",
  });
  // 20 waiting at a target of 4: five wanted, four allowed.
  const many = decide({ policy, current: 0, load: load(0, 20), nowMs: 0, window: {}, bounds: {} });
  expect(many).toMatchObject({ kind: "scale", to: 4 });
});

test("down after the delay, to the largest need seen meanwhile; idle goes to zero", () => {
  const window: Window = {};
  const at = (s: number, inFlight: number, current = 3) =>
    decide({ policy, current, load: load(inFlight), nowMs: s * 1000, window, bounds: {} });
  expect(at(0, 1).kind).toBe("none");
  expect(at(30, 6).kind).toBe("none");
  expect(at(60, 1)).toEqual({
    kind: "scale",
    to: 2,
    reason: "scaled down from 3 to 2: 1 in flight over 3 replicas, target 4 for 60 s",
  });
  const idle: Window = {};
  decide({ policy, current: 1, load: load(0), nowMs: 0, window: idle, bounds: {} });
  expect(decide({ policy, current: 1, load: load(0), nowMs: 61_000, window: idle, bounds: {} })).toEqual({
    kind: "scale",
    to: 0,
    reason: "scaled to zero: no requests for 61 s",
  });
});

test("min and max apply at once", () => {
  const floor = withDefaults({ ...policy, min_replicas: 2 });
  expect(decide({ policy: floor, current: 0, load: load(0), nowMs: 0, window: {}, bounds: {} })).toEqual({
    kind: "scale",
    to: 2,
    reason: "scaled up from 0 to 2: min_replicas is 2",
  });
  expect(decide({ policy, current: 6, load: load(30), nowMs: 0, window: {}, bounds: {} })).toEqual({
    kind: "scale",
    to: 4,
    reason: "max_replicas is 4",
  });
});

test("the cost bound limits or stops a scale-up, and the reason says so once", () => {
  const window: Window = {};
  const cost = { replicas: 2, why: "the pool's max_cost_per_hour ($2/h) pays for 2 at $1/h each" };
  const at = (s: number) =>
    decide({ policy, current: 2, load: load(16), nowMs: s * 1000, window, bounds: { cost } });
  at(0);
  expect(at(10)).toEqual({
    kind: "blocked",
    reason:
      "wanted 4 replicas (16 in flight over 2 replicas, target 4) but the pool's max_cost_per_hour ($2/h) pays for 2 at $1/h each",
  });
  expect(at(11)).toEqual({ kind: "none" });
  const limited = decide({
    policy,
    current: 1,
    load: load(16),
    nowMs: 0,
    window: { upSince: -20_000 },
    bounds: { capacity: { replicas: 3, why: "the local provider has room for 3" } },
  });
  expect(limited).toEqual({
    kind: "scale",
    to: 3,
    reason:
      "scaled up from 1 to 3: 16 in flight over 1 replica, target 4; limited to 3: the local provider has room for 3",
  });
});

test("a tokens-per-second target beside the in-flight one: the larger need wins", () => {
  const tokens = withDefaults({ ...policy, target_tokens_per_second_per_replica: 50, scale_up_delay_s: 0 });
  expect(
    decide({ policy: tokens, current: 1, load: load(1, 0, 180), nowMs: 0, window: {}, bounds: {} }),
  ).toMatchObject({
    kind: "scale",
    to: 4,
  });
});
