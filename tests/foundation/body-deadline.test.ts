// A request body that trickles in is cut (issue 33, finding 17): every gateway reads each body within
// its deadline (10 s for the default 1 MiB limit) and answers 408 `request_timeout` in its own error
// shape, with or without a Content-Length; a body that arrives in time is read as before.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { bodyDeadlineMs } from "#server/http/input.ts";
import { type GatewayTest, startGatewayTest } from "../inference/support.ts";
import { gatewayHandler, type Handler } from "../support/app.ts";

let g: GatewayTest;
let dashboard: Handler;
beforeAll(async () => {
  g = await startGatewayTest();
  dashboard = (await gatewayHandler(g.o.t.app, "dashboard")).handle;
}, 30_000);
afterAll(() => g.close(), 30_000);

/** A body that sends one byte every 400 ms and never ends. */
function trickle(): ReadableStream<Uint8Array> {
  let timer: ReturnType<typeof setInterval> | undefined;
  return new ReadableStream({
    start(controller) {
      timer = setInterval(() => controller.enqueue(new TextEncoder().encode(" ")), 400);
    },
    cancel() {
      clearInterval(timer);
    },
  });
}

const slowPost = (path: string, headers: Record<string, string> = {}) =>
  new Request(`http://localhost${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: trickle(),
  });

test("the deadline: 10 s up to 1 MiB, a second more for each MiB a route allows", () => {
  expect(bodyDeadlineMs(1024 * 1024)).toBe(10_000);
  expect(bodyDeadlineMs(16 * 1024 * 1024)).toBe(25_000);
});

test("a trickling body gets 408 on every gateway, over a socket and in process, within its deadline", async () => {
  const started = performance.now();
  const overSocket = async () => {
    // A real connection: headers promise 100 bytes, then one arrives every 400 ms.
    const res = await fetch(`${g.url}/v1/chat/completions`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        authorization: `Bearer ${g.key}`,
        "content-length": "100",
      },
      body: trickle(),
    });
    return { status: res.status, body: (await res.json()) as { error: { code: string } } };
  };
  const inProcess = async (handle: Handler, path: string, headers?: Record<string, string>) => {
    const res = await handle(slowPost(path, headers));
    return { status: res.status, body: (await res.json()) as { error: { code: string } } };
  };
  const form = dashboard(
    new Request("http://localhost/login", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: trickle(),
    }),
  );
  const [inference, filtration, orchestration, chunked, page] = await Promise.all([
    overSocket(),
    inProcess(g.o.filtration, "/auth/login", { "content-length": "100" }),
    inProcess(g.o.orchestration, "/deployment/deploy", { "content-length": "100" }),
    inProcess(g.o.filtration, "/auth/login"),
    form,
  ]);
  const elapsed = performance.now() - started;
  expect(inference).toEqual({
    status: 408,
    body: { error: expect.objectContaining({ code: "request_timeout" }) },
  });
  for (const answer of [filtration, orchestration, chunked])
    expect(answer).toEqual({
      status: 408,
      body: { error: expect.objectContaining({ code: "request_timeout" }) },
    });
  expect(page.status).toBe(408);
  expect(elapsed).toBeGreaterThanOrEqual(9_500);
  expect(elapsed).toBeLessThan(20_000);
}, 60_000);
