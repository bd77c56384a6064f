// Deployment logs: persisted lines (GET /deployment/logs/{id}), the stream endpoint's answer, and the
// WebSocket itself, on a listening gateway. Replica output of real workers is covered in the
// end-to-end test; here the reconciler's own notes are the lines.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { POST as login } from "#routes/filtration/auth/login.ts";
import { buildHttpGateway } from "#routes/gateways.ts";
import type { POST as deployRoute } from "#routes/orchestration/deployment/deploy.ts";
import type { GET as logsRoute } from "#routes/orchestration/deployment/logs/[deployment_id]/index.ts";
import type { GET as streamRoute } from "#routes/orchestration/deployment/logs/[deployment_id]/stream.ts";
import type { GET as statusRoute } from "#routes/orchestration/deployment/status/[deployment_id].ts";
import { listen } from "#server/http/listen.ts";
import type { Listener } from "#server/start/platform.ts";
import { keepLines, type LogEntry } from "#services/orchestration/logs.ts";
import { type Reconciler, startReconciler } from "#services/orchestration/reconciler.ts";
import { adminEmail, adminPassword, call, type ErrorBody, fetchJson, parsedJson } from "../support/app.ts";
import {
  createPool,
  eventually,
  fakeOpenAIServer,
  type OrchestrationTest,
  startOrchestrationTest,
} from "./support.ts";

let o: OrchestrationTest;
let reconciler: Reconciler;
let upstream: ReturnType<typeof fakeOpenAIServer>;
let listener: Listener;
let deploymentId: string;

beforeAll(async () => {
  o = await startOrchestrationTest();
  reconciler = startReconciler(o.t.app, { intervalMs: 100, logPumpMs: 50 });
  upstream = fakeOpenAIServer();
  listener = listen(o.t.app, "orchestration", 0, await buildHttpGateway(o.t.app, "orchestration"));
  const pool = await createPool(o, { provider: "external" });
  const res = await call<typeof deployRoute>(o.orchestration, "POST", "/deployment/deploy", {
    token: o.token,
    body: {
      model_name: "logged",
      pool_id: pool.pool_id,
      image: "none",
      configuration: { endpoints: [upstream.url] },
    },
  });
  deploymentId = res.body.deployment_id;
  await eventually(
    async () =>
      (
        await call<typeof statusRoute>(o.orchestration, "GET", `/deployment/status/${deploymentId}`, {
          token: o.token,
        })
      ).body.status === "RUNNING",
  );
}, 60_000);
afterAll(async () => {
  await listener.stop(100);
  await reconciler.stop({ stopWorkers: true });
  upstream.stop();
  await o.t.close();
});

describe("GET /deployment/logs/{deployment_id}", () => {
  test("returns the persisted lines, oldest first, as {ts, replica, stream, line}", async () => {
    const res = await eventually(
      async () => {
        const r = await call<typeof logsRoute>(o.orchestration, "GET", `/deployment/logs/${deploymentId}`, {
          token: o.token,
        });
        return r.body.lines?.some((l) => l.line.includes("ready at")) ? r : undefined;
      },
      5000,
      "the ready note",
    );
    expect(res.status).toBe(200);
    const first = res.body.lines[0];
    expect(first).toMatchObject({
      replica: 0,
      stream: "system",
      line: `replica 0 started (${upstream.url}/v1)`,
    });
    expect(Number.isNaN(Date.parse(first?.ts ?? ""))).toBe(false);
    const limited = await call<typeof logsRoute>(
      o.orchestration,
      "GET",
      `/deployment/logs/${deploymentId}?limit=1`,
      {
        token: o.token,
      },
    );
    expect(limited.body.lines).toHaveLength(1);
  }, 30_000);

  test("keeps only the last lines of a deployment", async () => {
    const hub = o.t.app.orchestration.logs;
    hub.push(
      deploymentId,
      0,
      "stdout",
      Array.from({ length: keepLines + 50 }, (_, i) => `line ${i}`),
    );
    await hub.flush(o.t.app.db);
    const res = await call<typeof logsRoute>(
      o.orchestration,
      "GET",
      `/deployment/logs/${deploymentId}?limit=1000`,
      {
        token: o.token,
      },
    );
    expect(res.body.lines).toHaveLength(keepLines);
    expect(res.body.lines.at(-1)?.line).toBe(`line ${keepLines + 49}`);
    expect(res.body.lines[0]?.line).toBe("line 50");
  }, 30_000);

  test("404 for an unknown deployment", async () => {
    expect(
      (
        await call<ErrorBody>(o.orchestration, "GET", `/deployment/logs/${crypto.randomUUID()}`, {
          token: o.token,
        })
      ).status,
    ).toBe(404);
  }, 30_000);
});

describe("the log stream", () => {
  test("GET …/stream returns the WebSocket URL; the socket sends the backlog, then new lines live", async () => {
    const info = await fetchJson<typeof streamRoute>(
      `http://127.0.0.1:${listener.port}/deployment/logs/${deploymentId}/stream`,
      { token: o.token },
    );
    expect(info.status).toBe(200);
    const body = info.body;
    expect(body).toEqual({
      url: `ws://127.0.0.1:${listener.port}/deployment/logs/${deploymentId}/ws`,
      format: "json",
    });

    const messages: LogEntry[] = [];
    const socket = new WebSocket(body.url, { headers: { authorization: `Bearer ${o.token}` } } as never);
    socket.onmessage = (event) => messages.push(parsedJson<LogEntry>(String(event.data)));
    await new Promise((resolve, reject) => {
      socket.onopen = resolve;
      socket.onerror = reject;
    });
    await eventually(async () => messages.length > 0, 5000, "the backlog");
    o.t.app.orchestration.logs.push(deploymentId, 0, "stderr", ["a live line"]);
    const live = await eventually(
      async () => messages.find((m) => m.line === "a live line"),
      5000,
      "the live line",
    );
    expect(live).toMatchObject({ replica: 0, stream: "stderr", line: "a live line" });
    expect(Object.keys(live).sort()).toEqual(["line", "replica", "stream", "ts"]);
    socket.close();
  }, 30_000);

  test("the socket takes the token as ?access_token= (browsers), and refuses without one", async () => {
    const url = `ws://127.0.0.1:${listener.port}/deployment/logs/${deploymentId}/ws`;
    const opened = await new Promise<boolean>((resolve) => {
      const s = new WebSocket(`${url}?access_token=${o.token}`);
      s.onopen = () => {
        s.close();
        resolve(true);
      };
      s.onerror = () => resolve(false);
    });
    expect(opened).toBe(true);
    const refused = await fetch(url.replace("ws://", "http://"), {
      headers: {
        upgrade: "websocket",
        connection: "Upgrade",
        "sec-websocket-version": "13",
        "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==",
      },
    });
    expect(refused.status).toBe(401);
    const unknown = await fetch(
      `http://127.0.0.1:${listener.port}/deployment/logs/${crypto.randomUUID()}/ws?access_token=${o.token}`,
      {
        headers: {
          upgrade: "websocket",
          connection: "Upgrade",
          "sec-websocket-version": "13",
          "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==",
        },
      },
    );
    expect(unknown.status).toBe(404);
  }, 30_000);
});

describe("a log socket lives as long as its session", () => {
  test("sign-out closes an open log socket within two seconds (1008); another session's socket stays", async () => {
    const url = `ws://127.0.0.1:${listener.port}/deployment/logs/${deploymentId}/ws`;
    const open = async (token: string) => {
      const socket = new WebSocket(url, { headers: { authorization: `Bearer ${token}` } } as never);
      const closed = new Promise<{ code: number; at: number }>((resolve) => {
        socket.onclose = (event) => resolve({ code: event.code, at: performance.now() });
      });
      await new Promise((resolve, reject) => {
        socket.onopen = resolve;
        socket.onerror = reject;
      });
      return { socket, closed };
    };
    const signIn = async () =>
      (
        await call<typeof login>(o.filtration, "POST", "/auth/login", {
          body: { email: adminEmail, password: adminPassword },
        })
      ).body.access_token;
    const leaving = await signIn();
    const staying = await signIn();
    const first = await open(leaving);
    const second = await open(staying);
    const signedOut = performance.now();
    expect((await call(o.filtration, "POST", "/auth/logout", { token: leaving })).status).toBeLessThan(300);
    const { code, at } = await first.closed;
    expect(code).toBe(1008);
    expect(at - signedOut).toBeLessThan(2500);
    // The other session's socket still streams.
    const lines: string[] = [];
    second.socket.onmessage = (event) => lines.push(parsedJson<LogEntry>(String(event.data)).line);
    o.t.app.orchestration.logs.push(deploymentId, 0, "stdout", ["still here"]);
    await eventually(async () => lines.includes("still here"), 5000, "the other session's line");
    second.socket.close();
    await second.closed;
  }, 30_000);
});
