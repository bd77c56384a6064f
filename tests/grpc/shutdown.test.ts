import { describe, expect, test } from "bun:test";
import type { ConnectRouter } from "@connectrpc/connect";
import * as grpc from "@grpc/grpc-js";
import { ModelRegistryService } from "#proto/gen/llmplatform/orchestration/v1/models_pb.ts";
import { simulateDelay } from "../support/wait.ts";
import { endOf, failureOf, nextMessage, startTestServer, TestClient } from "./support";

const MODELS = "llmplatform.orchestration.v1.ModelRegistryService";

/** GetModel takes `slowMs` to answer, or until the server cancels it; `started` says it began. */
function slowRegistry(slowMs: number) {
  let markStarted = () => {};
  const started = new Promise<void>((resolve) => {
    markStarted = resolve;
  });
  const routes = (router: ConnectRouter) => {
    router.service(ModelRegistryService, {
      async getModel(request, context) {
        markStarted();
        await Promise.race([
          simulateDelay(slowMs),
          new Promise((resolve) => context.signal.addEventListener("abort", resolve, { once: true })),
        ]);
        context.signal.throwIfAborted();
        return {
          model: { modelName: request.modelName, modelVersion: request.modelVersion, backend: "llama.cpp" },
        };
      },
    });
  };
  return { routes, started };
}

async function portRefuses(port: number): Promise<boolean> {
  try {
    await fetch(`http://127.0.0.1:${port}/grpc.health.v1.Health/Check`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}",
    });
    return false;
  } catch {
    return true;
  }
}

describe("close()", () => {
  test("completes and releases the port", async () => {
    const server = await startTestServer();
    const client = new TestClient(server.port);
    await client.unary("grpc.health.v1.Health", "Check", { service: "" });
    await server.close(1_000);
    client.close();
    expect(await portRefuses(server.port)).toBe(true);
  });

  test("completes at once with an idle HTTP/2 connection open", async () => {
    const server = await startTestServer();
    const client = new TestClient(server.port);
    await client.unary("grpc.health.v1.Health", "Check", { service: "" });
    const startedAt = performance.now();
    await server.close(5_000);
    expect(performance.now() - startedAt).toBeLessThan(1_000);
    client.close();
  });

  test("lets a call in flight finish before closing", async () => {
    const { routes, started } = slowRegistry(300);
    const server = await startTestServer(routes);
    const client = new TestClient(server.port);
    const call = client.unary<{ model: { model_name: string } }>(MODELS, "GetModel", {
      model_name: "m",
      model_version: "1",
    });
    await started;
    let callDone = false;
    void call.then(() => {
      callDone = true;
    });
    await server.close(5_000);
    expect(callDone).toBe(true);
    expect((await call).model.model_name).toBe("m");
    client.close();
  });

  test("cancels what outlives the deadline with UNAVAILABLE", async () => {
    const { routes, started } = slowRegistry(30_000);
    const server = await startTestServer(routes);
    const client = new TestClient(server.port);
    const call = failureOf(client.unary(MODELS, "GetModel", { model_name: "m", model_version: "1" }));
    await started;
    const startedAt = performance.now();
    await server.close(200);
    expect(performance.now() - startedAt).toBeLessThan(2_000);
    expect((await call).code).toBe(grpc.status.UNAVAILABLE);
    client.close();
  });

  test("lets a Connect call over HTTP/1.1 finish too", async () => {
    const { routes, started } = slowRegistry(300);
    const server = await startTestServer(routes);
    const call = fetch(`http://127.0.0.1:${server.port}/${MODELS}/GetModel`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ modelName: "m", modelVersion: "1" }),
    });
    await started;
    await server.close(5_000);
    const response = await call;
    expect(response.status).toBe(200);
    expect(((await response.json()) as { model: { modelName: string } }).model.modelName).toBe("m");
  });

  test("does not wait for open Watch streams: they end once they have said NOT_SERVING", async () => {
    const server = await startTestServer();
    const client = new TestClient(server.port);
    const watch = client.serverStream("grpc.health.v1.Health", "Watch", { service: "" });
    await nextMessage(watch);
    const ended = endOf(watch);
    const startedAt = performance.now();
    await server.close(10_000);
    expect(performance.now() - startedAt).toBeLessThan(1_000);
    await ended;
    client.close();
  });

  test("refuses new connections while draining", async () => {
    const { routes, started } = slowRegistry(500);
    const server = await startTestServer(routes);
    const client = new TestClient(server.port);
    const call = client.unary(MODELS, "GetModel", { model_name: "m", model_version: "1" });
    await started;
    const closed = server.close(5_000);
    expect(await portRefuses(server.port)).toBe(true);
    await call;
    await closed;
    client.close();
  });
});
