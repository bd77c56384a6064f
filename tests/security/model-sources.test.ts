// Model sources are confined (docs/security.md): a tenant cannot make the server read a file outside the
// model directories, learn whether one exists, see a byte of one, fetch from loopback, link-local or
// private addresses (directly, through DNS or through a redirect), nor deploy another organization's
// registered model.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { lookup } from "node:dns/promises";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { isInternalAddress } from "#adapters/net/addresses.ts";
import type { POST as deployRoute } from "#routes/orchestration/deployment/deploy.ts";
import type { POST as registerModelRoute } from "#routes/orchestration/deployment/registerModel.ts";
import type { GET as statusRoute } from "#routes/orchestration/deployment/status/[deployment_id].ts";
import {
  ModelFetcher,
  noModelFile,
  outsideModelDirs,
  type ResolvedModel,
} from "#services/orchestration/model-source.ts";
import { type Reconciler, startReconciler } from "#services/orchestration/reconciler.ts";
import {
  createPool,
  eventually,
  type OrchestrationTest,
  otherTenant,
  startOrchestrationTest,
} from "../orchestration/support.ts";
import { type CallResult, call, type ErrorBody } from "../support/app.ts";

const root = mkdtempSync(join(tmpdir(), "llmp-sources-"));
const modelsDir = join(root, "models");
mkdirSync(modelsDir);
let o: OrchestrationTest;
let reconciler: Reconciler;
let poolId: string;
let secretPath: string;
let secretHead: string;

beforeAll(async () => {
  // The data directory (with its secrets) is not a model directory here, as by default.
  o = await startOrchestrationTest({ MODELS_DIR: modelsDir });
  reconciler = startReconciler(o.t.app, { intervalMs: 100 });
  poolId = (await createPool(o, { provider: "local" })).pool_id;
  secretPath = join(o.t.config.dataDir, "jwt_secret");
  secretHead = readFileSync(secretPath, "utf8").slice(0, 4);
}, 60_000);
afterAll(async () => {
  await reconciler.stop({ stopWorkers: true });
  await o.t.close();
  rmSync(root, { recursive: true, force: true });
});

const deploy = <R = unknown>(inference_model: string, token = o.token) =>
  call<R>(o.orchestration, "POST", "/deployment/deploy", {
    token,
    body: {
      model_name: `m-${crypto.randomUUID().slice(0, 8)}`,
      pool_id: poolId,
      image: "llama.cpp",
      inference_model,
    },
  });

const refusal = (res: CallResult<ErrorBody>): string => {
  expect(res.status).toBe(400);
  const field = res.body.error.details?.fields?.find((f) => f.field === "inference_model");
  expect(field).toBeDefined();
  return field?.message ?? "";
};

describe("local paths", () => {
  test("outside the model directories: one answer whether or not the file exists", async () => {
    const answers = new Set<string>();
    for (const source of [
      "/etc/passwd",
      "/etc/no-such-file-here",
      secretPath,
      `file://${secretPath}`,
      "file:///etc/passwd",
      `${modelsDir}/../../../../../etc/passwd`,
      `${modelsDir}/../nothing.gguf`,
      o.t.config.dataDir,
    ]) {
      answers.add(refusal(await deploy(source)));
    }
    expect([...answers]).toEqual([outsideModelDirs]);
  });

  test("a symlink inside a model directory that points out is refused as outside", async () => {
    const link = join(modelsDir, "escape.gguf");
    symlinkSync(secretPath, link);
    const message = refusal(await deploy(link));
    expect(message).toBe(outsideModelDirs);
    expect(message).not.toContain(secretHead);
  });

  test("a missing file inside a model directory, or a directory, is refused without a byte of anything", async () => {
    mkdirSync(join(modelsDir, "adir"), { recursive: true });
    expect(refusal(await deploy(join(modelsDir, "missing.gguf")))).toBe(noModelFile);
    expect(refusal(await deploy(join(modelsDir, "adir")))).toBe(noModelFile);
  });

  test("a file that is not GGUF fails the deployment without quoting its bytes", async () => {
    const path = join(modelsDir, "not-gguf.gguf");
    writeFileSync(path, "RvEt this is not a model");
    const res = await deploy<typeof deployRoute>(path);
    expect(res.status).toBe(201);
    const failed = await eventually(
      async () => {
        const s = await call<typeof statusRoute>(
          o.orchestration,
          "GET",
          `/deployment/status/${res.body.deployment_id}`,
          {
            token: o.token,
          },
        );
        return s.body.status === "FAILED" ? s.body : undefined;
      },
      30_000,
      "FAILED",
    );
    expect(failed.failure_reason).toContain("GGUF magic");
    expect(failed.failure_reason).not.toContain("RvEt");
  }, 40_000);
});

describe("URLs", () => {
  test("only https, and no loopback, link-local or private address (without being listed)", async () => {
    const http = refusal(await deploy("http://example.com/m.gguf"));
    expect(http).toContain("https");
    for (const source of [
      "https://127.0.0.1/m.gguf",
      "https://127.1.2.3:8443/m.gguf",
      "https://169.254.169.254/latest/meta-data/",
      "https://10.0.0.1/m.gguf",
      "https://192.168.1.1/m.gguf",
      "https://[::1]/m.gguf",
      "https://[::ffff:127.0.0.1]/m.gguf",
      "https://localhost/m.gguf",
      "https://2130706433/m.gguf",
    ]) {
      expect(refusal(await deploy(source)), source).toContain("loopback, link-local or private");
    }
  });

  test("registering an artifact_uri follows the same URL rules", async () => {
    const res = await call<ErrorBody>(o.orchestration, "POST", "/deployment/registerModel", {
      token: o.token,
      body: { model_name: "meta", backend: "llama.cpp", artifact_uri: "https://169.254.169.254/x" },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.details?.fields?.[0]?.field).toBe("artifact_uri");
  });
});

describe("downloads: DNS and redirects are checked too", () => {
  let hits = { allowed: 0, hidden: 0 };
  const hidden = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch() {
      hits.hidden++;
      return new Response("GGUF secret from an internal service");
    },
  });
  const allowed: ReturnType<typeof Bun.serve> = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(request): Response {
      hits.allowed++;
      const path = new URL(request.url).pathname;
      if (path === "/to-hidden") return Response.redirect(`http://127.0.0.1:${hidden.port}/m.gguf`, 302);
      if (path === "/to-localhost") return Response.redirect(`http://localhost:${allowed.port}/m.gguf`, 302);
      if (path === "/to-self") return Response.redirect(`http://127.0.0.1:${allowed.port}/m.gguf`, 302);
      return new Response("GGUF ok");
    },
  });
  afterAll(() => {
    hidden.stop(true);
    allowed.stop(true);
  });
  // The operator lists one test host (and port), over http.
  const rules = () => ({
    dirs: [join(root, "downloads")],
    allowHttp: true,
    allowedHosts: [`127.0.0.1:${allowed.port}`],
  });
  const settle = async (fetcher: ModelFetcher, url: string): Promise<ResolvedModel> => {
    fetcher.fetch(url);
    await fetcher.downloaded(url);
    return fetcher.fetch(url);
  };

  test("a redirect from the listed host to one not listed is refused before it is called", async () => {
    hits = { allowed: 0, hidden: 0 };
    const fetcher = new ModelFetcher(rules());
    for (const path of ["/to-hidden", "/to-localhost"]) {
      const result = await settle(fetcher, `http://127.0.0.1:${allowed.port}${path}`);
      expect(result.state).toBe("failed");
      expect(result.state === "failed" ? result.reason : "").toContain("a redirect names a loopback");
    }
    expect(hits.hidden).toBe(0);
    expect(hits.allowed).toBe(2);
  });

  test("a redirect that stays on the listed host is followed", async () => {
    const result = await settle(new ModelFetcher(rules()), `http://127.0.0.1:${allowed.port}/to-self`);
    expect(result.state).toBe("ready");
    expect(readFileSync(result.state === "ready" ? result.path : "", "utf8")).toBe("GGUF ok");
  });

  test("a host name that resolves to an internal address is refused (its addresses are checked)", async () => {
    // This machine's own name: it resolves to loopback or the machine's private address.
    const name = hostname().toLowerCase();
    const addresses = (await lookup(name, { all: true })).map((a) => a.address);
    expect(addresses.some(isInternalAddress)).toBe(true);
    hits = { allowed: 0, hidden: 0 };
    const result = await settle(new ModelFetcher(rules()), `http://${name}:${hidden.port}/m.gguf`);
    expect(result.state).toBe("failed");
    expect(result.state === "failed" ? result.reason : "").toContain("loopback, link-local or private");
    expect(hits.hidden).toBe(0);
  });
});

describe("organizations", () => {
  test("another organization's registered model: the same answers as a missing one, by registry or by path", async () => {
    const path = join(modelsDir, "a-private.gguf");
    writeFileSync(path, "GGUF private to A");
    const registered = await call<typeof registerModelRoute>(
      o.orchestration,
      "POST",
      "/deployment/registerModel",
      {
        token: o.token,
        body: { model_name: "private", model_version: "1", backend: "llama.cpp", artifact_uri: path },
      },
    );
    expect(registered.status).toBe(201);
    expect(registered.body.shared).toBe(false);

    const b = await otherTenant(o, "b-admin@b.example");
    const bPool = (await createPool({ ...o, token: b.access_token }, { provider: "local" })).pool_id;
    const deployB = <R = unknown>(source: string) =>
      call<R>(o.orchestration, "POST", "/deployment/deploy", {
        token: b.access_token,
        body: { model_name: "stolen", pool_id: bPool, image: "llama.cpp", inference_model: source },
      });
    const byRegistry = await deployB<ErrorBody>("registry://private/1");
    const missing = await deployB<ErrorBody>("registry://nothing/1");
    expect(byRegistry.status).toBe(400);
    expect(byRegistry.body.error.message).toBe(missing.body.error.message.replace("nothing", "private"));
    expect(refusal(await deployB(path))).toBe(noModelFile);
    expect(refusal(await deployB(`file://${path}`))).toBe(noModelFile);
    const getModel = await call(o.orchestration, "GET", "/deployment/getModel/private/1", {
      token: b.access_token,
    });
    expect(getModel.status).toBe(404);

    // Shared on purpose: then its file is deployable by path from another organization.
    const shared = join(modelsDir, "a-shared.gguf");
    writeFileSync(shared, "GGUF shared by A");
    await call(o.orchestration, "POST", "/deployment/registerModel", {
      token: o.token,
      body: {
        model_name: "open",
        model_version: "1",
        backend: "llama.cpp",
        artifact_uri: shared,
        shared: true,
      },
    });
    expect((await deployB(shared)).status).toBe(201);
  }, 30_000);
});

describe("external endpoints", () => {
  test("loopback stays allowed by default; setting endpoints takes providers:write", async () => {
    const pool = (await createPool(o, { provider: "external" })).pool_id;
    const body = {
      model_name: "beside",
      pool_id: pool,
      image: "none",
      engine: "openai-compatible",
      configuration: { endpoints: ["http://127.0.0.1:9/v1"] },
    };
    const { createUser } = await import("../support/app.ts");
    const developer = await createUser(o.t, o.filtration, "dev@sources.example", "developer");
    const byDeveloper = await call<ErrorBody>(o.orchestration, "POST", "/deployment/deploy", {
      token: developer.access_token,
      body,
    });
    expect(byDeveloper.status).toBe(403);
    expect(byDeveloper.body.error.message).toContain("providers:write");
    const byAdmin = await call(o.orchestration, "POST", "/deployment/deploy", { token: o.token, body });
    expect(byAdmin.status).toBe(201);
  }, 30_000);

  test("EXTERNAL_ENDPOINTS_ALLOW_PRIVATE=false refuses internal addresses", async () => {
    const strict = await startOrchestrationTest({ EXTERNAL_ENDPOINTS_ALLOW_PRIVATE: "false" });
    try {
      const pool = (await createPool(strict, { provider: "external" })).pool_id;
      const res = await call<ErrorBody>(strict.orchestration, "POST", "/deployment/deploy", {
        token: strict.token,
        body: {
          model_name: "inside",
          pool_id: pool,
          image: "none",
          engine: "openai-compatible",
          replicas: 1,
          configuration: { endpoints: ["http://169.254.169.254/v1", "http://localhost:8000/v1"] },
        },
      });
      expect(res.status).toBe(400);
      expect(res.body.error.details?.fields?.map((f) => f.field).sort()).toEqual([
        "configuration.endpoints.0",
        "configuration.endpoints.1",
      ]);
    } finally {
      await strict.t.close();
    }
  }, 30_000);
});
