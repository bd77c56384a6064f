// Model sources (CONTRACTS): a path or file:// URL of a GGUF file, an http(s):// URL of one
// (fetched into DATA_DIR/models), or registry://<model_name>/<model_version>, which stands for that
// registered model's artifact_uri. Checked at deploy time where it can be (local files, registry
// entries); resolved to a file by the reconciler before a replica starts.
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, renameSync, rmSync, statSync } from "node:fs";
import { basename, isAbsolute, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { and, eq } from "drizzle-orm";
import type { Executor } from "../../db/client.ts";
import { models } from "../../db/schema/index.ts";
import { AppError, invalid } from "../errors.ts";

export type ModelSource =
  | { kind: "file"; path: string }
  | { kind: "http"; url: string }
  | { kind: "registry"; name: string; version: string };

const field = "inference_model";

export function parseModelSource(raw: string): ModelSource {
  const source = raw.trim();
  if (source === "") throw invalid(field, "is empty");
  if (source.startsWith("registry://")) {
    const [name, version, ...rest] = source.slice("registry://".length).split("/");
    if (!name || !version || rest.length > 0) {
      throw invalid(field, "a registry source is registry://<model_name>/<model_version>");
    }
    return { kind: "registry", name: decodeURIComponent(name), version: decodeURIComponent(version) };
  }
  if (/^https?:\/\//i.test(source)) {
    try {
      return { kind: "http", url: new URL(source).toString() };
    } catch {
      throw invalid(field, "is not a valid URL");
    }
  }
  if (source.startsWith("file://")) {
    try {
      return { kind: "file", path: fileURLToPath(source) };
    } catch {
      throw invalid(field, "is not a valid file:// URL");
    }
  }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(source)) {
    throw invalid(
      field,
      "use a path, a file:// or http(s):// URL, or registry://<model_name>/<model_version>",
    );
  }
  return { kind: "file", path: isAbsolute(source) ? source : resolve(source) };
}

/** What is stored: paths made absolute (the process may later start elsewhere), the rest as given. */
export function normalizeModelSource(raw: string): string {
  const source = parseModelSource(raw);
  return source.kind === "file" && !raw.trim().startsWith("file://") ? source.path : raw.trim();
}

function fileProblem(path: string): string | undefined {
  try {
    const stat = statSync(path);
    if (!stat.isFile()) return `${path} is not a file`;
    if (stat.size === 0) return `${path} is empty`;
    return undefined;
  } catch {
    return `no file at ${path}`;
  }
}

async function registered(db: Executor, orgId: string, name: string, version: string) {
  const [model] = await db
    .select()
    .from(models)
    .where(and(eq(models.orgId, orgId), eq(models.name, name), eq(models.version, version)))
    .limit(1);
  return model;
}

/** The source behind a registry entry (one level: an artifact cannot point to the registry again). */
type ConcreteSource = Exclude<ModelSource, { kind: "registry" }>;

async function concreteSource(db: Executor, orgId: string, source: ModelSource): Promise<ConcreteSource> {
  if (source.kind !== "registry") return source;
  const model = await registered(db, orgId, source.name, source.version);
  if (!model) throw invalid(field, `no registered model ${source.name} version ${source.version}`);
  if (!model.artifactUri)
    throw invalid(field, `model ${source.name} version ${source.version} has no artifact_uri`);
  const inner = parseModelSource(model.artifactUri);
  if (inner.kind === "registry") throw invalid(field, "a registered artifact cannot point to the registry");
  return inner;
}

/** Deploy-time check: the source must exist where this can be known now (400 `inference_model`). */
export async function checkModelSource(db: Executor, orgId: string, raw: string): Promise<void> {
  const source = await concreteSource(db, orgId, parseModelSource(raw));
  if (source.kind === "file") {
    const problem = fileProblem(source.path);
    if (problem) throw invalid(field, problem);
  }
}

export type ResolvedModel =
  | { state: "ready"; path: string }
  | { state: "pending" }
  | { state: "failed"; reason: string };

/** Downloads of http(s) sources, one at a time per URL, into DATA_DIR/models. */
export class ModelFetcher {
  private readonly downloads = new Map<string, { done?: string; error?: string }>();

  constructor(private readonly dataDir: string) {}

  pathFor(url: string): string {
    const name = basename(new URL(url).pathname) || "model.gguf";
    const hash = createHash("sha256").update(url).digest("hex").slice(0, 16);
    return join(this.dataDir, "models", `${hash}-${name.replace(/[^A-Za-z0-9._-]/g, "_")}`);
  }

  fetch(url: string): ResolvedModel {
    const path = this.pathFor(url);
    if (existsSync(path)) return { state: "ready", path };
    const download = this.downloads.get(url);
    if (download?.error) {
      this.downloads.delete(url);
      return { state: "failed", reason: download.error };
    }
    if (!download) {
      const entry: { done?: string; error?: string } = {};
      this.downloads.set(url, entry);
      this.download(url, path).then(
        () => {
          entry.done = path;
          this.downloads.delete(url);
        },
        (error: unknown) => {
          entry.error = `could not fetch ${url}: ${error instanceof Error ? error.message : String(error)}`;
        },
      );
    }
    return { state: "pending" };
  }

  private async download(url: string, path: string): Promise<void> {
    mkdirSync(join(this.dataDir, "models"), { recursive: true });
    const partial = `${path}.${process.pid}.part`;
    try {
      const res = await fetch(url, { redirect: "follow" });
      if (!res.ok || !res.body) throw new Error(`HTTP ${res.status}`);
      await Bun.write(partial, res);
      renameSync(partial, path);
    } catch (error) {
      rmSync(partial, { force: true });
      throw error;
    }
  }
}

/** The model file a replica loads, fetching it first when it is remote. */
export async function resolveModelFile(
  db: Executor,
  orgId: string,
  raw: string,
  fetcher: ModelFetcher,
): Promise<ResolvedModel> {
  let source: ConcreteSource;
  try {
    source = await concreteSource(db, orgId, parseModelSource(raw));
  } catch (error) {
    return { state: "failed", reason: error instanceof AppError ? error.message : String(error) };
  }
  if (source.kind === "http") return fetcher.fetch(source.url);
  const problem = fileProblem(source.path);
  return problem
    ? { state: "failed", reason: `model file: ${problem}` }
    : { state: "ready", path: source.path };
}
