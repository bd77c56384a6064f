// One port, three protocols: gRPC over HTTP/2 (grpc-js), Connect and gRPC-Web over HTTP/1.1
// (plain fetch, as a browser or curl would send them).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Code, ConnectError, type Interceptor } from "@connectrpc/connect";
import * as grpc from "@grpc/grpc-js";
import { registerUnimplemented } from "#server/grpc/orchestration-stubs.ts";
import type { GrpcServer } from "#server/grpc/server.ts";
import { failureOf, startTestServer, TestClient } from "./support";

const POOLS = "llmplatform.orchestration.v1.ComputePoolManagerService";

/** Stands in for the authentication interceptor: no authorization metadata, no call. */
const requireAuthorization: Interceptor = (next) => (request) => {
  if (!request.header.get("authorization"))
    throw new ConnectError("missing credentials", Code.Unauthenticated);
  return next(request);
};

let server: GrpcServer;
let client: TestClient;
let base: string;

beforeAll(async () => {
  server = await startTestServer(registerUnimplemented, [requireAuthorization]);
  client = new TestClient(server.port);
  base = `http://127.0.0.1:${server.port}`;
});

afterAll(async () => {
  client.close();
  await server.close(1_000);
});

const withToken = () => {
  const metadata = new grpc.Metadata();
  metadata.set("authorization", "Bearer test-token");
  return metadata;
};

/** A gRPC-Web or Connect streaming envelope: flags, big-endian length, message. */
function envelope(flags: number, message: Uint8Array): Uint8Array<ArrayBuffer> {
  const framed = new Uint8Array(5 + message.length);
  const view = new DataView(framed.buffer);
  view.setUint8(0, flags);
  view.setUint32(1, message.length);
  framed.set(message, 5);
  return framed;
}

function unframe(body: Uint8Array): Array<{ flags: number; text: string }> {
  const frames: Array<{ flags: number; text: string }> = [];
  const view = new DataView(body.buffer, body.byteOffset, body.byteLength);
  for (let offset = 0; offset + 5 <= body.length; ) {
    const length = view.getUint32(offset + 1);
    frames.push({
      flags: body[offset] ?? 0,
      text: new TextDecoder().decode(body.subarray(offset + 5, offset + 5 + length)),
    });
    offset += 5 + length;
  }
  return frames;
}

describe("gRPC (grpc-js, HTTP/2)", () => {
  test("an orchestration method answers UNIMPLEMENTED", async () => {
    const error = await failureOf(client.unary(POOLS, "ListPools", { owner_id: "org-1" }, withToken()));
    expect(error.code).toBe(grpc.status.UNIMPLEMENTED);
    expect(error.details).toBe("this method is unavailable in this build");
  });

  test("interceptors guard the application's services", async () => {
    const error = await failureOf(client.unary(POOLS, "ListPools", { owner_id: "org-1" }));
    expect(error.code).toBe(grpc.status.UNAUTHENTICATED);
  });

  test("but not health, which probes call without credentials", async () => {
    const answer = await client.unary<{ status: string }>("grpc.health.v1.Health", "Check", { service: "" });
    expect(answer.status).toBe("SERVING");
  });
});

describe("Connect (fetch, HTTP/1.1) on the same port", () => {
  test("unary JSON: Health/Check", async () => {
    const response = await fetch(`${base}/grpc.health.v1.Health/Check`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}",
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: "SERVING" });
  });

  test("an orchestration method is HTTP 501 with code unimplemented", async () => {
    const response = await fetch(`${base}/${POOLS}/ListPools`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: "Bearer test-token" },
      body: JSON.stringify({ ownerId: "org-1" }),
    });
    expect(response.status).toBe(501);
    expect(await response.json()).toEqual({
      code: "unimplemented",
      message: "this method is unavailable in this build",
    });
  });

  test("server streaming JSON: Health/Watch sends its first message", async () => {
    const abort = new AbortController();
    const response = await fetch(`${base}/grpc.health.v1.Health/Watch`, {
      method: "POST",
      headers: { "content-type": "application/connect+json" },
      body: envelope(0, new TextEncoder().encode(JSON.stringify({ service: "" }))),
      signal: abort.signal,
    });
    expect(response.status).toBe(200);
    const reader = response.body?.getReader();
    const first = await reader?.read();
    expect(unframe(first?.value ?? new Uint8Array())[0]?.text).toBe(JSON.stringify({ status: "SERVING" }));
    abort.abort();
  });
});

describe("gRPC-Web (fetch, HTTP/1.1) on the same port", () => {
  test("unary JSON: Health/Check with status in the trailer frame", async () => {
    const response = await fetch(`${base}/grpc.health.v1.Health/Check`, {
      method: "POST",
      headers: { "content-type": "application/grpc-web+json", "x-grpc-web": "1" },
      body: envelope(0, new TextEncoder().encode(JSON.stringify({ service: "" }))),
    });
    expect(response.status).toBe(200);
    const frames = unframe(new Uint8Array(await response.arrayBuffer()));
    expect(frames[0]).toEqual({ flags: 0, text: JSON.stringify({ status: "SERVING" }) });
    expect(frames[1]?.flags).toBe(0x80);
    expect(frames[1]?.text).toContain("grpc-status: 0");
  });
});
