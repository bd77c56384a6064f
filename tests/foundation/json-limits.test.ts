// Every gateway refuses a JSON body nested too deep (400) and a body over its limit (413), in its own
// error shape, on a real listener (Bun's own limit would answer 413 with an empty body), whether the
// body declares its length or not. The gRPC port (Connect takes JSON) answers in its own standard codes.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { OpenAIError } from "#contracts/openai/error.ts";
import { buildHttpGateway } from "#routes/gateways.ts";
import { GrpcMetrics } from "#server/grpc/metrics-interceptor.ts";
import { startGrpc } from "#server/grpc/start.ts";
import { defaultBodyLimit } from "#server/http/gateway.ts";
import { maxJsonDepth } from "#server/http/input.ts";
import { listen } from "#server/http/listen.ts";
import type { Listener } from "#server/start/platform.ts";
import { call, gatewayHandler, jsonBody, loginAsAdmin, startTestApp, type TestApp } from "../support/app.ts";

let t: TestApp;
const listeners: Record<string, Listener> = {};
let token: string;

beforeAll(async () => {
  t = await startTestApp({ HOST: "127.0.0.1" });
  for (const name of ["inference", "filtration", "orchestration"] as const) {
    listeners[name] = listen(t.app, name, 0, await buildHttpGateway(t.app, name));
  }
  listeners.dashboard = listen(t.app, "dashboard", 0, await buildHttpGateway(t.app, "dashboard"));
  listeners.grpc = await startGrpc(t.app, new GrpcMetrics());
  token = (await loginAsAdmin((await gatewayHandler(t.app, "filtration")).handle)).access_token;
}, 60_000);
afterAll(async () => {
  await Promise.all(Object.values(listeners).map((l) => l.stop(100)));
  await t.close();
});

const deep = (levels: number) => `${"[".repeat(levels)}${"]".repeat(levels)}`;
const url = (name: string, path: string) => `http://127.0.0.1:${listeners[name]?.port}${path}`;

/** A route of each gateway that takes a JSON body, and the body around the deep value. */
const targets = {
  inference: { path: "/v1/chat/completions", wrap: (v: string) => `{"model":"m","messages":${v}}` },
  filtration: { path: "/auth/login", wrap: (v: string) => `{"email":${v},"password":"x"}` },
  orchestration: { path: "/deployment/registerModel", wrap: (v: string) => `{"config_json":{"a":${v}}}` },
} as const;

/** The body of a Connect (JSON over HTTP) error from the gRPC port: its code, as the Connect protocol names it. */
interface ConnectError {
  code: string;
  message?: string;
}

const expectShape = (name: string, status: number, body: Record<string, Record<string, unknown>>) => {
  if (name === "inference") {
    expect(body.error).toMatchObject({
      type: "invalid_request_error",
      code: status === 413 ? "payload_too_large" : "invalid_request_error",
    });
    expect(typeof body.error?.message).toBe("string");
    expect("param" in (body.error ?? {})).toBe(true);
  } else {
    expect(body.error?.code).toBe(status === 413 ? "payload_too_large" : "validation_error");
    expect(typeof body.error?.message).toBe("string");
  }
};

/** fetch's options with `duplex`, which a streamed body needs and the DOM typings do not name. */
type StreamingRequestInit = RequestInit & { duplex: "half" };

describe.each(Object.keys(targets) as (keyof typeof targets)[])("%s gateway", (name) => {
  const { path, wrap } = targets[name];
  const post = (body: BodyInit, headers: Record<string, string> = {}) => {
    const init: StreamingRequestInit = {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${token}`, ...headers },
      body,
      duplex: "half",
    };
    return fetch(url(name, path), init);
  };

  test("JSON nested 50,000 deep is 400 in the gateway's shape", async () => {
    const res = await post(wrap(deep(50_000)));
    expect(res.status).toBe(400);
    const body = await res.json();
    expectShape(name, 400, body);
    expect(JSON.stringify(body)).toContain(`${maxJsonDepth}`);
  });

  test(`JSON nested ${maxJsonDepth} levels is accepted by the limit (any answer but the depth refusal)`, async () => {
    const res = await post(wrap(deep(maxJsonDepth - 3)));
    expect(res.status).not.toBe(500);
    expect(JSON.stringify(await res.json())).not.toContain("nested deeper");
  });

  test("a body over the limit is 413 in the gateway's shape, with or without Content-Length", async () => {
    const big = wrap(`"${"x".repeat(defaultBodyLimit + 10)}"`);
    const declared = await post(big);
    expect(declared.status).toBe(413);
    expectShape(name, 413, await declared.json());

    const bytes = new TextEncoder().encode(big);
    const stream = new ReadableStream({
      start(controller) {
        for (let i = 0; i < bytes.length; i += 64 * 1024)
          controller.enqueue(bytes.subarray(i, i + 64 * 1024));
        controller.close();
      },
    });
    const chunked = await post(stream);
    expect(chunked.status).toBe(413);
    expectShape(name, 413, await chunked.json());
  });

  test("a small body sent without Content-Length still works", async () => {
    const body = new TextEncoder().encode(wrap(`"x"`));
    const stream = new ReadableStream({
      start(controller) {
        controller.enqueue(body);
        controller.close();
      },
    });
    const res = await post(stream);
    expect(res.status).not.toBe(413);
    expect(res.status).not.toBe(500);
  });
});

test("the dashboard answers an oversized body with 413, not an empty answer", async () => {
  const res = await fetch(url("dashboard", "/login"), {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: `email=${"x".repeat(defaultBodyLimit + 10)}`,
  });
  expect(res.status).toBe(413);
  expect((await res.text()).length).toBeGreaterThan(0);
});

test("the gRPC port (Connect JSON) refuses deep and oversized messages with its standard codes", async () => {
  const method = "/llmplatform.orchestration.v1.ModelRegistryService/RegisterModel";
  const post = (body: string) =>
    fetch(url("grpc", method), {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
      body,
    });
  let nested = '"x"';
  for (let i = 0; i < 50_000; i++) nested = `{"a":${nested}}`;
  const deepRes = await post(`{"model_name":"m","backend":"llama.cpp","config_json":${nested}}`);
  expect(deepRes.status).not.toBe(500);
  expect((await jsonBody<ConnectError>(deepRes)).code).toBeOneOf(["invalid_argument", "resource_exhausted"]);
  const big = await post(`{"model_name":"${"x".repeat(5 * 1024 * 1024)}"}`);
  expect(big.status).not.toBe(500);
  expect((await jsonBody<ConnectError>(big)).code).toBe("resource_exhausted");
});

test("the gRPC port refuses control characters as the gateways do (INVALID_ARGUMENT)", async () => {
  const res = await fetch(url("grpc", "/llmplatform.orchestration.v1.ModelRegistryService/RegisterModel"), {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
    body: JSON.stringify({ model_name: "a\u0000b", backend: "llama.cpp" }),
  });
  expect(res.status).toBe(400);
  const body = (await res.json()) as { code: string; message: string };
  expect(body.code).toBe("invalid_argument");
  expect(body.message).toMatch(/model_?name/i);
});

test("call() through app.handle gets the same 400 (no port needed)", async () => {
  const { handle } = await gatewayHandler(t.app, "inference");
  const res = await call<OpenAIError>(handle, "POST", "/v1/chat/completions", {
    raw: targets.inference.wrap(deep(1000)),
  });
  expect(res.status).toBe(400);
  expect(res.body.error.code).toBe("invalid_request_error");
});
