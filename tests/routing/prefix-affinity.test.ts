// Prefix-aware routing's decision (adapters/upstream/balancer.ts with a PrefixTable), without HTTP: the
// replica that served a prompt's longest prefix takes its next turn; a hot prefix stays within the load
// bound; a replica out of rotation, removed or forgotten is not chosen; the table stays bounded; and
// the block chain of services/inference/prefix-blocks.ts matches what an engine can reuse.
import { afterAll, expect, test } from "bun:test";
import { InFlightBalancer } from "#adapters/upstream/balancer.ts";
import { type Affinity, PrefixTable } from "#adapters/upstream/prefix-table.ts";
import { ReplicaHealth } from "#adapters/upstream/replica-health.ts";
import type { ChatMessage } from "#contracts/openai/chat.ts";
import { blockChars, promptBlocks } from "#services/inference/prefix-blocks.ts";

const healths: ReplicaHealth[] = [];
afterAll(() => {
  for (const h of healths) h.close();
});

const a = "http://a/v1";
const b = "http://b/v1";
const replicas = [a, b];

const system = (name: string): ChatMessage => ({ role: "system", content: `${name} `.repeat(800) });
/** Turn n of a conversation: its system prompt, then n user/assistant exchanges and a new question. */
function turn(name: string, n: number): ChatMessage[] {
  const messages: ChatMessage[] = [system(name)];
  for (let i = 0; i < n; i++) {
    messages.push({ role: "user", content: `${name} question ${i}` });
    messages.push({ role: "assistant", content: `${name} answer ${i}` });
  }
  messages.push({ role: "user", content: `${name} question ${n}` });
  return messages;
}
const affinity = (messages: ChatMessage[], scope = "deployment-1"): Affinity => ({
  scope,
  blocks: promptBlocks(messages),
});

/** Picks the way sendUpstream does, synchronously (no shared store here). */
function choose(balancer: InFlightBalancer, request: Affinity, endpoints = replicas) {
  const choice = balancer.choose(endpoints, undefined, request);
  if (choice instanceof Promise || !choice) throw new Error("expected an immediate choice");
  return choice;
}

test("a conversation's next turns go to the replica that served its earlier turns", () => {
  const balancer = new InFlightBalancer(undefined, new PrefixTable());
  const first = choose(balancer, affinity(turn("alpha", 0)));
  expect(first.routing).toBe("miss");
  // Other conversations start in between: fewest in flight (ties rotate) would alternate replicas.
  for (let n = 1; n <= 5; n++) {
    choose(balancer, affinity(turn(`other${n}`, 0)));
    const next = choose(balancer, affinity(turn("alpha", n)));
    expect(next).toEqual({ endpoint: first.endpoint, routing: "hit" });
  }
});

test("without a table (prefix affinity off) the same turns go by fewest in flight, alternating", () => {
  const balancer = new InFlightBalancer();
  const seen = new Set<string>();
  for (let n = 0; n < 4; n++) {
    const choice = choose(balancer, affinity(turn("alpha", n)));
    expect(choice.routing).toBeUndefined();
    seen.add(choice.endpoint);
  }
  expect(seen.size).toBe(2);
});

test("one hot prefix under skewed load: no replica goes over ceil(1.25 × (in flight + 1) / replicas)", () => {
  const balancer = new InFlightBalancer(undefined, new PrefixTable());
  const hot = affinity(turn("hot", 0));
  const releases: (() => void)[] = [];
  const outcomes: Record<string, number> = {};
  for (let i = 0; i < 40; i++) {
    const total = balancer.inFlight(a) + balancer.inFlight(b);
    const bound = Math.ceil((1.25 * (total + 1)) / 2);
    const choice = choose(balancer, hot);
    outcomes[choice.routing as string] = (outcomes[choice.routing as string] ?? 0) + 1;
    releases.push(balancer.acquire(choice.endpoint));
    expect(balancer.inFlight(choice.endpoint)).toBeLessThanOrEqual(bound);
    // Now and then one finishes, the oldest first, as a stream would.
    if (i % 3 === 2) releases.shift()?.();
  }
  // Both replicas carried the hot prefix, and most requests still followed it.
  expect(Math.abs(balancer.inFlight(a) - balancer.inFlight(b))).toBeLessThanOrEqual(
    Math.ceil((1.25 * (balancer.inFlight(a) + balancer.inFlight(b))) / 2),
  );
  expect(outcomes.overloaded ?? 0).toBeGreaterThan(0);
  expect(outcomes.hit ?? 0).toBeGreaterThan(outcomes.overloaded ?? 0);
  for (const release of releases) release();
});

test("a replica out of rotation is not chosen for its prefixes; the request goes elsewhere", () => {
  const health = new ReplicaHealth({
    failureThreshold: 1,
    probeBaseMs: 60_000,
    probeMaxMs: 60_000,
    probe: async () => false,
  });
  healths.push(health);
  const balancer = new InFlightBalancer(health, new PrefixTable());
  const three = [...replicas, "http://c/v1"];
  const held = choose(balancer, affinity(turn("alpha", 0)), three);
  health.failed(held.endpoint);
  const next = choose(balancer, affinity(turn("alpha", 1)), three);
  expect(next.endpoint).not.toBe(held.endpoint);
  expect(next.routing).toBe("miss");
  // Its turns stay on the replica that took them over.
  expect(choose(balancer, affinity(turn("alpha", 2)), three)).toEqual({
    endpoint: next.endpoint,
    routing: "hit",
  });
});

test("a removed replica's prefixes go away; a new replica starts cold and takes new conversations", () => {
  const table = new PrefixTable();
  const balancer = new InFlightBalancer(undefined, table);
  const held = choose(balancer, affinity(turn("alpha", 0)));
  const other = held.endpoint === a ? b : a;
  const c = "http://c/v1";
  // The replica is drained: the deployment's replicas are now the other one and a new one.
  const release = balancer.acquire(other);
  const moved = choose(balancer, affinity(turn("alpha", 1)), [other, c]);
  expect(moved).toEqual({ endpoint: c, routing: "miss" });
  release();
  expect(table.longest(affinity(turn("alpha", 0)), [held.endpoint], () => true)).toBeUndefined();
  // forget() (a replica health forgot) drops what a replica held.
  table.forget(c);
  expect(table.size).toBe(0);
});

test("the table keeps at most maxEntries, the least recently recorded going first, and entries expire", () => {
  let now = 0;
  const table = new PrefixTable({ maxEntries: 50, ttlMs: 1000, now: () => now });
  for (let i = 0; i < 40; i++) table.record(affinity(turn(`c${i}`, 0)), a);
  expect(table.size).toBeLessThanOrEqual(50);
  const newest = affinity(turn("c39", 0));
  expect(table.longest(newest, replicas, () => true)?.endpoint).toBe(a);
  expect(table.longest(affinity(turn("c0", 0)), replicas, () => true)).toBeUndefined();
  now = 1001;
  expect(table.longest(newest, replicas, () => true)).toBeUndefined();
});

test("block chains: a later turn extends the earlier chain; a grown prompt shares its full blocks", () => {
  const earlier = promptBlocks(turn("alpha", 1));
  const later = promptBlocks(turn("alpha", 2));
  expect(later.slice(0, earlier.length)).toEqual(earlier);
  expect(promptBlocks(turn("beta", 1))[0]).not.toBe(earlier[0]);
  // A /v1/completions prompt that grows at its end: every full block of the shorter one is shared.
  const text = "x".repeat(blockChars * 3 + 100);
  const short = promptBlocks([{ role: "user", content: text }]);
  const long = promptBlocks([{ role: "user", content: `${text}more` }]);
  expect(long.slice(0, 3)).toEqual(short.slice(0, 3));
  expect(long[3]).not.toBe(short[3]);
  // Tools come first: other tools, another chain.
  expect(promptBlocks(turn("alpha", 1), [{ type: "function" }])[1]).not.toBe(earlier[0]);
});
