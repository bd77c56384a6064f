// The model registry over HTTP: versions, 409 on a duplicate, registry:// sources and their guard.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { DELETE as deleteModel } from "#routes/orchestration/deployment/deleteModel.ts";
import type { POST as deployRoute } from "#routes/orchestration/deployment/deploy.ts";
import type { GET as getModel } from "#routes/orchestration/deployment/getModel/[name]/[version].ts";
import type { GET as listModels } from "#routes/orchestration/deployment/listModels/[model_name].ts";
import type { POST as registerModel } from "#routes/orchestration/deployment/registerModel.ts";
import { call, createUser, type ErrorBody } from "../support/app.ts";
import { createPool, type OrchestrationTest, startOrchestrationTest } from "./support.ts";

let o: OrchestrationTest;
let modelFile: string;

beforeAll(async () => {
  o = await startOrchestrationTest();
  modelFile = join(o.t.config.dataDir, "m.gguf");
  writeFileSync(modelFile, "GGUF not really");
}, 60_000);
afterAll(() => o.t.close());

// Typed as the route's answer; a test expecting a refusal reads it as `register<ErrorBody>(...)`.
const register = <R = typeof registerModel>(body: Record<string, unknown>, token = o.token) =>
  call<R>(o.orchestration, "POST", "/deployment/registerModel", { token, body });

describe("model registry", () => {
  test("register, get, list versions, delete", async () => {
    const first = await register({
      model_name: "tiny",
      model_version: "1",
      backend: "llama.cpp",
      artifact_uri: modelFile,
      config_json: { ctx: 512 },
    });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({
      model_name: "tiny",
      model_version: "1",
      backend: "llama.cpp",
      artifact_uri: modelFile,
      config_json: { ctx: 512 },
    });
    expect((await register({ model_name: "tiny", model_version: "2", backend: "llama.cpp" })).status).toBe(
      201,
    );

    const got = await call<typeof getModel>(o.orchestration, "GET", "/deployment/getModel/tiny/1", {
      token: o.token,
    });
    expect(got.status).toBe(200);
    expect(got.body.artifact_uri).toBe(modelFile);
    const list = await call<typeof listModels>(o.orchestration, "GET", "/deployment/listModels/tiny", {
      token: o.token,
    });
    expect(list.body.models.map((m: { model_version: string }) => m.model_version)).toEqual(["1", "2"]);

    const del = await call<typeof deleteModel>(o.orchestration, "DELETE", "/deployment/deleteModel", {
      token: o.token,
      body: { model_name: "tiny", model_version: "2" },
    });
    expect(del.status).toBe(200);
    expect(
      (await call(o.orchestration, "GET", "/deployment/getModel/tiny/2", { token: o.token })).status,
    ).toBe(404);
    expect(
      (
        await call(o.orchestration, "DELETE", "/deployment/deleteModel", {
          token: o.token,
          body: { model_name: "tiny", model_version: "2" },
        })
      ).status,
    ).toBe(404);
  }, 30_000);

  test("the same name and version twice is 409; the version defaults to latest", async () => {
    expect((await register({ model_name: "dup", backend: "llama.cpp" })).body.model_version).toBe("latest");
    const again = await register<ErrorBody>({ model_name: "dup", backend: "llama.cpp" });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe("conflict");
  }, 30_000);

  test("400 naming the field: missing backend, unknown backend, bad name", async () => {
    const missing = await register<ErrorBody>({ model_name: "x" });
    expect(missing.status).toBe(400);
    expect(missing.body.error.details?.fields?.[0]?.field).toBe("backend");
    const unknown = await register<ErrorBody>({ model_name: "x", backend: "magic" });
    expect(unknown.body.error.details?.fields?.[0]?.field).toBe("backend");
    const name = await register<ErrorBody>({ model_name: "a/b", backend: "llama.cpp" });
    expect(name.body.error.details?.fields?.[0]?.field).toBe("model_name");
  }, 30_000);

  test("a viewer reads but cannot register", async () => {
    const viewer = await createUser(o.t, o.filtration, "model-viewer@example.com", "viewer");
    expect((await register({ model_name: "v", backend: "llama.cpp" }, viewer.access_token)).status).toBe(403);
    expect(
      (await call(o.orchestration, "GET", "/deployment/listModels/tiny", { token: viewer.access_token }))
        .status,
    ).toBe(200);
  }, 30_000);

  test("registry:// sources resolve at deploy time; a model in use cannot be deleted", async () => {
    await register({ model_name: "src", model_version: "1", backend: "llama.cpp", artifact_uri: modelFile });
    await register({
      model_name: "gone",
      model_version: "1",
      backend: "llama.cpp",
      artifact_uri: join(o.t.config.dataDir, "missing.gguf"),
    });
    const pool = await createPool(o);
    const deploy = <R = typeof deployRoute>(name: string, source: string) =>
      call<R>(o.orchestration, "POST", "/deployment/deploy", {
        token: o.token,
        body: { model_name: name, pool_id: pool.pool_id, image: "llama.cpp", inference_model: source },
      });
    expect((await deploy("uses-registry", "registry://src/1")).status).toBe(201);
    const unknown = await deploy<ErrorBody>("unknown-version", "registry://src/9");
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.details?.fields?.[0]?.field).toBe("inference_model");
    const missingFile = await deploy<ErrorBody>("missing-artifact", "registry://gone/1");
    expect(missingFile.status).toBe(400);
    expect(missingFile.body.error.details?.fields?.[0]?.field).toBe("inference_model");
    const inUse = await call(o.orchestration, "DELETE", "/deployment/deleteModel", {
      token: o.token,
      body: { model_name: "src", model_version: "1" },
    });
    expect(inUse.status).toBe(409);
  }, 30_000);
});
