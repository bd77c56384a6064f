// The access interceptor: the gRPC twin of the HTTP guard, with the same tokens and permissions.
import { afterAll, beforeAll, expect, test } from "bun:test";
import * as grpc from "@grpc/grpc-js";
import { createUser, gatewayHandler, loginAsAdmin, startTestApp, type TestApp } from "../support/app.ts";
import { connectPlatformGrpc, type TestClient } from "./support.ts";

const pools = "llmplatform.orchestration.v1.ComputePoolManagerService";
let t: TestApp;
let closeGrpc: (() => Promise<void>) | undefined;
let client: TestClient;
let adminToken: string;
let viewerToken: string;

beforeAll(async () => {
  t = await startTestApp();
  const { handle } = await gatewayHandler(t.app, "filtration");
  adminToken = (await loginAsAdmin(handle)).access_token;
  viewerToken = (await createUser(t, handle, "viewer@example.com", "viewer")).access_token;
  ({ client, close: closeGrpc } = await connectPlatformGrpc(t.app));
}, 60_000);
afterAll(async () => {
  await closeGrpc?.();
  await t.close();
});

const bearer = (token: string) => {
  const metadata = new grpc.Metadata();
  metadata.set("authorization", `Bearer ${token}`);
  return metadata;
};
const codeOf = (promise: Promise<unknown>) =>
  promise.then(
    () => grpc.status.OK,
    (e: grpc.ServiceError) => e.code,
  );

test("UNAUTHENTICATED without a token, or with a bad one", async () => {
  expect(await codeOf(client.unary(pools, "ListPools", {}))).toBe(grpc.status.UNAUTHENTICATED);
  expect(await codeOf(client.unary(pools, "ListPools", {}, bearer("not.a.token")))).toBe(
    grpc.status.UNAUTHENTICATED,
  );
});

test("PERMISSION_DENIED when the role lacks the method's permission", async () => {
  expect(await codeOf(client.unary(pools, "RegisterPool", {}, bearer(viewerToken)))).toBe(
    grpc.status.PERMISSION_DENIED,
  );
});

test("an authorized caller reaches the method", async () => {
  expect(await codeOf(client.unary(pools, "ListPools", {}, bearer(adminToken)))).toBe(grpc.status.OK);
  expect(await codeOf(client.unary(pools, "ListPools", {}, bearer(viewerToken)))).toBe(grpc.status.OK);
});
