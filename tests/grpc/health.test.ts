import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import * as grpc from "@grpc/grpc-js";
import { ServingStatus } from "#server/grpc/health.ts";
import type { GrpcServer } from "#server/grpc/server.ts";
import {
  cancel,
  endOf,
  failureOf,
  nextMessage,
  ORCHESTRATION_SERVICE_NAMES,
  startTestServer,
  TestClient,
} from "./support";

const HEALTH = "grpc.health.v1.Health";
interface HealthCheckResponse {
  status: string;
}

let server: GrpcServer;
let client: TestClient;

beforeEach(async () => {
  server = await startTestServer();
  client = new TestClient(server.port);
});

afterEach(async () => {
  client.close();
  await server.close(1_000);
});

describe("Health/Check over gRPC", () => {
  test("answers SERVING for the whole server", async () => {
    const answer = await client.unary<HealthCheckResponse>(HEALTH, "Check", { service: "" });
    expect(answer.status).toBe("SERVING");
  });

  test("answers SERVING for every registered service, health and reflection included", async () => {
    const names = [...ORCHESTRATION_SERVICE_NAMES, HEALTH, "grpc.reflection.v1.ServerReflection"];
    for (const service of names) {
      const answer = await client.unary<HealthCheckResponse>(HEALTH, "Check", { service });
      expect(answer.status).toBe("SERVING");
    }
  });

  test("answers NOT_FOUND for a service it does not serve", async () => {
    const error = await failureOf(client.unary(HEALTH, "Check", { service: "no.such.Service" }));
    expect(error.code).toBe(grpc.status.NOT_FOUND);
  });

  test("reflects a status set on the board", async () => {
    const service = ORCHESTRATION_SERVICE_NAMES[0] ?? "";
    server.health.setStatus(service, ServingStatus.NOT_SERVING);
    const answer = await client.unary<HealthCheckResponse>(HEALTH, "Check", { service });
    expect(answer.status).toBe("NOT_SERVING");
  });
});

describe("Health/List", () => {
  test("lists every known service with its status", async () => {
    const answer = await client.unary<{ statuses: Record<string, HealthCheckResponse> }>(HEALTH, "List", {});
    expect(Object.keys(answer.statuses)).toEqual(
      expect.arrayContaining(["", HEALTH, ...ORCHESTRATION_SERVICE_NAMES]),
    );
    expect(answer.statuses[""]?.status).toBe("SERVING");
  });
});

describe("Health/Watch over gRPC (server streaming)", () => {
  test("sends the current status, then each change", async () => {
    const service = ORCHESTRATION_SERVICE_NAMES[1] ?? "";
    const watch = client.serverStream(HEALTH, "Watch", { service });
    expect((await nextMessage<HealthCheckResponse>(watch)).status).toBe("SERVING");
    server.health.setStatus(service, ServingStatus.NOT_SERVING);
    expect((await nextMessage<HealthCheckResponse>(watch)).status).toBe("NOT_SERVING");
    server.health.setStatus(service, ServingStatus.SERVING);
    expect((await nextMessage<HealthCheckResponse>(watch)).status).toBe("SERVING");
    cancel(watch);
  });

  test("says SERVICE_UNKNOWN for an unknown service and keeps watching until it appears", async () => {
    const watch = client.serverStream(HEALTH, "Watch", { service: "later.Service" });
    expect((await nextMessage<HealthCheckResponse>(watch)).status).toBe("SERVICE_UNKNOWN");
    server.health.setStatus("later.Service", ServingStatus.SERVING);
    expect((await nextMessage<HealthCheckResponse>(watch)).status).toBe("SERVING");
    cancel(watch);
  });

  test("says NOT_SERVING when the server shuts down, then ends the stream with OK", async () => {
    const watch = client.serverStream(HEALTH, "Watch", { service: "" });
    expect((await nextMessage<HealthCheckResponse>(watch)).status).toBe("SERVING");
    const closed = server.close(5_000);
    expect((await nextMessage<HealthCheckResponse>(watch)).status).toBe("NOT_SERVING");
    await endOf(watch);
    await closed;
  });
});
