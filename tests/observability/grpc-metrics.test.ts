// gRPC calls counted by method and status code, refusals included, shown on /metrics.
import { afterAll, beforeAll, expect, test } from "bun:test";
import * as grpc from "@grpc/grpc-js";
import { buildHttpGateway } from "#routes/gateways.ts";
import { GrpcMetrics } from "#server/grpc/metrics-interceptor.ts";
import { connectPlatformGrpc, type TestClient } from "../grpc/support.ts";
import { gatewayHandler, loginAsAdmin, startTestApp, type TestApp } from "../support/app.ts";
import { parseMetrics, promtool, sampleSum } from "./support.ts";

const pools = "llmplatform.orchestration.v1.ComputePoolManagerService";
let t: TestApp;
let closeGrpc: (() => Promise<void>) | undefined;
let client: TestClient;
let token: string;
const metrics = new GrpcMetrics();

beforeAll(async () => {
  t = await startTestApp();
  token = (await loginAsAdmin((await gatewayHandler(t.app, "filtration")).handle)).access_token;
  ({ client, close: closeGrpc } = await connectPlatformGrpc(t.app, [metrics.interceptor()]));
}, 60_000);
afterAll(async () => {
  await closeGrpc?.();
  await t.close();
});

test("each call is counted by service, method and code, and /metrics shows it", async () => {
  const bearer = new grpc.Metadata();
  bearer.set("authorization", `Bearer ${token}`);
  const codeOf = (call: Promise<unknown>) =>
    call.then(
      () => grpc.status.OK,
      (e: grpc.ServiceError) => e.code,
    );
  expect(await codeOf(client.unary(pools, "ListPools", {}))).toBe(grpc.status.UNAUTHENTICATED);
  expect(await codeOf(client.unary(pools, "ListPools", {}, bearer))).toBe(grpc.status.OK);
  expect(await codeOf(client.unary(pools, "ListPools", {}, bearer))).toBe(grpc.status.OK);
  expect(await codeOf(client.unary(pools, "DeletePool", { pool_id: crypto.randomUUID() }, bearer))).toBe(
    grpc.status.NOT_FOUND,
  );

  const gateway = await buildHttpGateway(t.app, "orchestration", {}, [metrics.registry]);
  const page = await (await gateway.app.handle(new Request("http://localhost/metrics"))).text();
  const samples = parseMetrics(page);
  const handled = (grpc_method: string, grpc_code: string) =>
    sampleSum(samples, "grpc_server_handled_total", {
      grpc_service: pools,
      grpc_method,
      grpc_code,
      grpc_type: "unary",
    });
  expect(handled("ListPools", "OK")).toBe(2);
  expect(handled("ListPools", "Unauthenticated")).toBe(1);
  expect(handled("DeletePool", "NotFound")).toBe(1);
  expect(sampleSum(samples, "grpc_server_handling_seconds_count", { grpc_method: "ListPools" })).toBe(3);
  expect(await promtool(page)).toEqual({ code: 0, output: "" });
}, 30_000);
