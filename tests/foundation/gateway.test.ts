import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import SwaggerParser from "@apidevtools/swagger-parser";
import type { OpenAPIV3 } from "openapi-types";
import type { ErrorResponse as AnthropicError } from "#contracts/anthropic/messages.ts";
import type { OpenAIError } from "#contracts/openai/error.ts";
import { createGateway } from "#server/http/gateway.ts";
import type { HttpMetrics } from "#server/http/metrics.ts";
import { route } from "#server/http/route.ts";
import { createLogger } from "#server/log.ts";
import {
  call,
  type ErrorBody,
  gatewayHandler,
  type Handler,
  startTestApp,
  type TestApp,
} from "../support/app.ts";

/** A gateway's OpenAPI document, with what this test reads of its operations (the validator checks the rest). */
interface OpenApiJson extends OpenAPIV3.Document {
  paths: Record<string, { get?: DocumentedOperation; post?: DocumentedOperation }>;
}
interface DocumentedOperation extends OpenAPIV3.OperationObject {
  requestBody?: { content: Record<string, { schema: { required: string[] } }> };
}

import { within } from "../support/wait.ts";

let t: TestApp;
const handlers: Record<string, Handler> = {};
const httpMetrics: Record<string, HttpMetrics> = {};

beforeAll(async () => {
  t = await startTestApp();
  for (const name of ["inference", "filtration", "orchestration", "dashboard"] as const) {
    const { gateway, handle } = await gatewayHandler(t.app, name);
    handlers[name] = handle;
    httpMetrics[name] = gateway.runtime.metrics;
  }
}, 60_000);
afterAll(() => t.close());

describe.each(["inference", "filtration", "orchestration", "dashboard"])("%s gateway", (name) => {
  test("GET /health answers ok", async () => {
    const res = await call(handlers[name] as Handler, "GET", "/health");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: "ok", gateway: name });
  });

  test("GET /ready checks the database", async () => {
    const res = await call(handlers[name] as Handler, "GET", "/ready");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: "ready", checks: { database: "ok" } });
  });

  test("GET /metrics counts requests per route and status, with latency histograms", async () => {
    const handle = handlers[name] as Handler;
    const metrics = httpMetrics[name] as HttpMetrics;
    const counted = metrics.observed + 1;
    await call(handle, "GET", "/health");
    // Metrics are recorded once the response has gone out.
    await within(metrics.observedAtLeast(counted), 5000, "the /health answer counted");
    const res = await handle(new Request("http://localhost/metrics"));
    const text = await res.text();
    expect(res.headers.get("content-type")).toStartWith("text/plain");
    expect(text).toContain(
      `http_requests_total{gateway="${name}",method="GET",route="/health",status="200"}`,
    );
    expect(text).toContain(
      `http_request_duration_seconds_bucket{le="0.005",gateway="${name}",method="GET",route="/health",status="200"}`,
    );
    expect(text).toMatch(/process_resident_memory_bytes \d+/);
  });
});

describe.each(["inference", "filtration", "orchestration", "dashboard"])(
  "%s gateway, unknown routes",
  (name) => {
    test("an unknown route is 404 not_found in the gateway's error envelope", async () => {
      const handle = handlers[name] as Handler;
      // (The dashboard refuses a POST without its CSRF token before it looks for a route: 403.)
      const tried: [string, string][] = [["GET", "/no/such/route"]];
      if (name !== "dashboard") tried.push(["POST", "/v1/no-such-endpoint"]);
      for (const [method, path] of tried) {
        const res = await call(handle, method, path, method === "POST" ? { body: {} } : {});
        expect(res.status).toBe(404);
        const message = `no route for ${method} ${path}`;
        if (name === "inference") {
          // OpenAI's error shape; model_not_found is kept for an unknown model.
          expect(res.body).toEqual({
            error: { message, type: "invalid_request_error", param: null, code: "not_found" },
          });
        } else {
          expect(res.body).toEqual({ error: { code: "not_found", message } });
        }
      }
    });
  },
);

test("inference gateway: no route under /v1/messages is Anthropic's 404 not_found_error", async () => {
  // Anthropic's SDKs and Claude Code ask for these (the batches API, a GET): they read Anthropic's shape.
  for (const [method, path] of [
    ["POST", "/v1/messages/batches"],
    ["GET", "/v1/messages"],
    ["GET", "/v1/messages/msg_01/x"],
  ] as const) {
    const res = await call<AnthropicError>(
      handlers.inference as Handler,
      method,
      path,
      method === "POST" ? { body: {} } : {},
    );
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({
      type: "error",
      error: { type: "not_found_error", message: `no route for ${method} ${path}` },
    });
  }
  // Elsewhere on the inference gateway, OpenAI's shape: /v1/messagesx is not under /v1/messages.
  const other = await call<OpenAIError>(handlers.inference as Handler, "GET", "/v1/messagesx");
  expect(other.body.error.code).toBe("not_found");
});

describe("dashboard gateway, unknown routes in a browser", () => {
  test("a page that is not here is the dashboard's HTML 404 for a browser", async () => {
    const res = await (handlers.dashboard as Handler)(
      new Request("http://localhost/no/such/page", { headers: { accept: "text/html,*/*;q=0.8" } }),
    );
    expect(res.status).toBe(404);
    expect(res.headers.get("content-type")).toStartWith("text/html");
  });
});

describe.each(["inference", "filtration", "orchestration"])("%s API", (name) => {
  test("the OpenAPI document is valid OpenAPI 3 and documents every route with its shapes", async () => {
    const res = await call<OpenApiJson>(handlers[name] as Handler, "GET", "/openapi/json");
    expect(res.status).toBe(200);
    expect(res.body.openapi).toStartWith("3.");
    const validated = await SwaggerParser.validate(structuredClone(res.body));
    expect(validated.paths?.["/health"]).toBeDefined();
    if (name === "filtration") {
      const login = res.body.paths["/auth/login"]?.post;
      expect(login?.requestBody?.content["application/json"]?.schema.required).toContain("email");
      expect(login?.responses["200"]).toBeDefined();
      expect(res.body.paths["/auth/me"]?.get?.security).toEqual([{ bearer: [] }]);
    }
  });

  test("the reference UI is served with its assets from node_modules, not a CDN", async () => {
    const handle = handlers[name] as Handler;
    const page = await handle(new Request("http://localhost/openapi"));
    const html = await page.text();
    expect(page.status).toBe(200);
    expect(html).toContain("/openapi/assets/swagger-ui-bundle.js");
    expect(html).not.toContain("unpkg.com");
    const asset = await handle(new Request("http://localhost/openapi/assets/swagger-ui-bundle.js"));
    expect(asset.status).toBe(200);
    expect((await asset.arrayBuffer()).byteLength).toBeGreaterThan(100_000);
  });
});

test("every response carries x-request-id, and a caller's id is kept", async () => {
  const handle = handlers.filtration as Handler;
  const generated = await handle(new Request("http://localhost/health"));
  expect(generated.headers.get("x-request-id")).toMatch(/^req_/);
  const kept = await handle(
    new Request("http://localhost/no-such", { headers: { "x-request-id": "abc-123" } }),
  );
  expect(kept.headers.get("x-request-id")).toBe("abc-123");
});

test("a body over the limit is 413 payload_too_large before it is read", async () => {
  const size = 1024 * 1024 + 1;
  const res = await call<ErrorBody>(handlers.filtration as Handler, "POST", "/auth/login", {
    raw: "x".repeat(size),
    headers: { "content-length": String(size) },
  });
  expect(res.status).toBe(413);
  expect(res.body.error.code).toBe("payload_too_large");
});

describe("a gateway built with test routes", () => {
  const lines: string[] = [];
  const build = () => {
    const log = createLogger("info");
    // Capture the JSON log lines this gateway writes.
    const write = process.stdout.write.bind(process.stdout);
    return { log, write };
  };

  test("an unexpected exception is 500 internal without its message or stack, and is logged", async () => {
    const { write } = build();
    const requestLogged = Promise.withResolvers<void>();
    process.stdout.write = ((chunk: string) => {
      lines.push(String(chunk));
      if (lines.join("").includes('"msg":"request"')) requestLogged.resolve();
      return true;
    }) as typeof process.stdout.write;
    try {
      const gateway = createGateway({
        name: "filtration",
        title: "t",
        description: "t",
        app: { ...t.app, log: createLogger("info") },
        docs: false,
        routes: [
          {
            method: "GET",
            path: "/boom",
            file: "test",
            definition: route({
              access: "public",
              summary: "boom",
              handler: () => {
                throw new Error("secret detail: password=hunter2");
              },
            }),
          },
        ],
      });
      const res = await gateway.app.handle(new Request("http://localhost/boom"));
      const body = await res.json();
      expect(res.status).toBe(500);
      expect(body).toEqual({ error: { code: "internal", message: "internal error" } });
      // Log lines are written together a little later: wait for the request's (at most 2 s on a loaded machine).
      await within(requestLogged.promise, 2000, "the request's log line");
    } finally {
      process.stdout.write = write;
    }
    const logged = lines
      .join("")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    const request = logged.find((l) => l.msg === "request");
    expect(request).toMatchObject({ gateway: "filtration", method: "GET", route: "/boom", status: 500 });
    expect(request.request_id).toMatch(/^req_/);
    expect(typeof request.latency_ms).toBe("number");
    expect(logged.some((l) => l.msg === "unhandled exception")).toBe(true);
  });
});
