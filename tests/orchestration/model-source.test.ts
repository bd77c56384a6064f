// Model sources: what a deployment's inference_model may be, and how it becomes a file.
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { AppError } from "#core/errors.ts";
import {
  ModelFetcher,
  normalizeModelSource,
  parseModelSource,
} from "#services/orchestration/model-source.ts";

const dir = mkdtempSync(join(tmpdir(), "llmp-src-"));
let requests = 0;
const server = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  fetch(request) {
    requests++;
    return new URL(request.url).pathname === "/m.gguf"
      ? new Response("GGUF bytes")
      : new Response("no", { status: 404 });
  },
});
afterAll(() => {
  server.stop(true);
  rmSync(dir, { recursive: true, force: true });
});
// The test server is on loopback over http: the operator settings that allow it.
const rules = {
  dirs: [join(dir, "models")],
  allowHttp: true,
  allowedHosts: [`127.0.0.1:${server.port}`],
};

describe("parseModelSource", () => {
  test("paths, file:// and http(s):// URLs, registry://name/version", () => {
    expect(parseModelSource("/models/a.gguf")).toEqual({ kind: "file", path: "/models/a.gguf" });
    expect(parseModelSource("models/a.gguf")).toEqual({ kind: "file", path: resolve("models/a.gguf") });
    expect(parseModelSource("file:///models/a%20b.gguf")).toEqual({ kind: "file", path: "/models/a b.gguf" });
    expect(parseModelSource("https://example.com/a.gguf")).toEqual({
      kind: "http",
      url: "https://example.com/a.gguf",
    });
    expect(parseModelSource("registry://tiny/1")).toEqual({ kind: "registry", name: "tiny", version: "1" });
    expect(normalizeModelSource("models/a.gguf")).toBe(resolve("models/a.gguf"));
    expect(normalizeModelSource("registry://tiny/1")).toBe("registry://tiny/1");
  });

  test("anything else is a validation error naming inference_model", () => {
    for (const bad of ["", "registry://tiny", "registry://a/b/c", "s3://bucket/a.gguf"]) {
      try {
        parseModelSource(bad);
        throw new Error(`accepted ${bad}`);
      } catch (error) {
        expect(error).toBeInstanceOf(AppError);
        expect((error as AppError).details?.fields?.[0]?.field).toBe("inference_model");
      }
    }
  });
});

describe("ModelFetcher", () => {
  test("downloads an http(s) model once into DATA_DIR/models", async () => {
    const fetcher = new ModelFetcher(rules);
    const url = `http://127.0.0.1:${server.port}/m.gguf`;
    expect(fetcher.fetch(url)).toEqual({ state: "pending" });
    await fetcher.downloaded(url);
    const result = fetcher.fetch(url);
    expect(result.state).toBe("ready");
    const path = result.state === "ready" ? result.path : "";
    expect(path.startsWith(join(dir, "models"))).toBe(true);
    expect(readFileSync(path, "utf8")).toBe("GGUF bytes");
    const before = requests;
    expect(new ModelFetcher(rules).fetch(url)).toEqual({ state: "ready", path });
    expect(requests).toBe(before);
  });

  test("a failed download is reported with its reason, and leaves no partial file", async () => {
    const fetcher = new ModelFetcher(rules);
    const url = `http://127.0.0.1:${server.port}/missing.gguf`;
    fetcher.fetch(url);
    await fetcher.downloaded(url);
    const result = fetcher.fetch(url);
    expect(result).toEqual({ state: "failed", reason: `could not fetch ${url}: HTTP 404` });
    expect(existsSync(fetcher.pathFor(url))).toBe(false);
  });
});
