// The inference log's ttft_ms: for a stream, when its first content chunk was ready to go out (well
// before the last); for a JSON answer, when the whole answer was (so about its latency); none for a
// request that produced no token. The overview's time-to-first-token charts are drawn from it.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { chat, type GatewayTest, loggedRequest, startGatewayTest } from "./support.ts";

let g: GatewayTest;

beforeAll(async () => {
  g = await startGatewayTest();
  g.stub.chunks = 6;
  g.stub.gapMs = 60;
}, 60_000);
afterAll(() => g.close());

test("a stream's first token comes well before its end", async () => {
  const res = await chat(g, { stream: true });
  const requestId = res.headers.get("x-request-id") as string;
  await res.text();
  const row = await loggedRequest(g, requestId);
  expect(row?.ttftMs).toBeNumber();
  expect(row?.latencyMs).toBeGreaterThan(250);
  // Six deltas 60 ms apart: the first is out at least four gaps before the last.
  expect((row?.latencyMs as number) - (row?.ttftMs as number)).toBeGreaterThan(200);
});

test("a JSON answer's first token is its whole answer", async () => {
  const res = await chat(g);
  const requestId = res.headers.get("x-request-id") as string;
  await res.json();
  const row = await loggedRequest(g, requestId);
  expect(row?.ttftMs).toBeNumber();
  expect(row?.ttftMs as number).toBeLessThanOrEqual(row?.latencyMs as number);
  expect(row?.ttftMs as number).toBeGreaterThan(0.8 * (row?.latencyMs as number) - 5);
});

test("a refused request has none", async () => {
  const res = await chat(g, { model: "no-such-model" });
  expect(res.status).toBe(404);
  const row = await loggedRequest(g, res.headers.get("x-request-id") as string);
  expect(row?.status).toBe(404);
  expect(row?.ttftMs).toBeNull();
});
