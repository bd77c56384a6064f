// Model sources (CONTRACTS): a path or file:// URL of a GGUF file, an http(s):// URL of one (fetched
// into the first model directory), or registry://<model_name>/<model_version>, which stands for that
// registered model's artifact_uri in the caller's organization.
//
// A source is named by a tenant and read or fetched by this server, so it is confined
// (docs/security.md): a local path must resolve, symlinks followed, into one of the model directories
// (MODELS_DIR); a URL must be https (http only with MODEL_SOURCE_ALLOW_HTTP) to a host whose
// addresses are public, unless the operator lists it (MODEL_SOURCE_ALLOWED_HOSTS); every redirect is
// checked the same way. A file registered by another organization is not deployable by its path
// unless that model is `shared`. Refusals never say whether a file outside the directories exists,
// and no error carries a byte of a file.
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, realpathSync, renameSync, rmSync, statSync } from "node:fs";
import { basename, isAbsolute, join, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { and, eq, inArray, ne } from "drizzle-orm";
import { AppError, invalid } from "#core/errors.ts";
import type { Executor } from "#db/client.ts";
import { models } from "#db/schema/index.ts";
import type { ModelSourceSettings } from "../config.ts";
import { resolvedUrlProblem, urlProblem } from "../outbound-urls.ts";

export type ModelSource =
  | { kind: "file"; path: string }
  | { kind: "http"; url: string }
  | { kind: "registry"; name: string; version: string };

const field = "inference_model";

/** The one answer for a path outside the model directories, whether or not something is there. */
export const outsideModelDirs = "must be a file inside a model directory (MODELS_DIR)";
/** The one answer for a path inside them that is no usable file (missing, a directory, empty, foreign). */
export const noModelFile = "no model file of that name in the model directories";

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

const inside = (path: string, dir: string) =>
  path === dir || path.startsWith(dir.endsWith(sep) ? dir : dir + sep);

const realOrUndefined = (path: string): string | undefined => {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
};

/**
 * The real path of a model file inside the model directories, or why not. The lexical path is checked
 * first (so `..` cannot climb out), then the real one (so a symlink cannot point out); only then is the
 * file looked at, so a path outside gets one answer whether or not it exists.
 */
export function confinedModelFile(
  path: string,
  dirs: readonly string[],
): { path: string } | { problem: string } {
  const lexical = resolve(path);
  if (!dirs.some((dir) => inside(lexical, resolve(dir)))) return { problem: outsideModelDirs };
  const real = realOrUndefined(lexical);
  if (!real) return { problem: noModelFile };
  const realDirs = dirs.map(realOrUndefined).filter((d): d is string => d !== undefined);
  if (!realDirs.some((dir) => inside(real, dir))) return { problem: outsideModelDirs };
  try {
    const stat = statSync(real);
    if (!stat.isFile() || stat.size === 0) return { problem: noModelFile };
  } catch {
    return { problem: noModelFile };
  }
  return { path: real };
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
  // Only the caller's organization is searched: another's model answers as a missing one.
  const model = await registered(db, orgId, source.name, source.version);
  if (!model) throw invalid(field, `no registered model ${source.name} version ${source.version}`);
  if (!model.artifactUri)
    throw invalid(field, `model ${source.name} version ${source.version} has no artifact_uri`);
  const inner = parseModelSource(model.artifactUri);
  if (inner.kind === "registry") throw invalid(field, "a registered artifact cannot point to the registry");
  return inner;
}

/** Whether another organization registered this file without sharing it. */
async function foreignArtifact(db: Executor, orgId: string, paths: string[]): Promise<boolean> {
  const spellings = [...new Set(paths.flatMap((p) => [p, `file://${p}`]))];
  const [row] = await db
    .select({ id: models.id })
    .from(models)
    .where(and(ne(models.orgId, orgId), eq(models.shared, false), inArray(models.artifactUri, spellings)))
    .limit(1);
  return row !== undefined;
}

/** A local file source checked: confined, and not another organization's unshared artifact. */
async function usableFile(
  db: Executor,
  orgId: string,
  path: string,
  rules: ModelSourceSettings,
): Promise<{ path: string } | { problem: string }> {
  const file = confinedModelFile(path, rules.dirs);
  if ("problem" in file) return file;
  if (await foreignArtifact(db, orgId, [resolve(path), file.path])) return { problem: noModelFile };
  return file;
}

/** Deploy-time check for providers that load a model file here (400 `inference_model`). */
export async function checkModelSource(
  db: Executor,
  orgId: string,
  raw: string,
  rules: ModelSourceSettings,
): Promise<void> {
  const source = await concreteSource(db, orgId, parseModelSource(raw));
  if (source.kind === "http") {
    const problem = urlProblem(source.url, rules);
    if (problem) throw invalid(field, problem);
    return;
  }
  const file = await usableFile(db, orgId, source.path, rules);
  if ("problem" in file) throw invalid(field, file.problem);
}

/**
 * Deploy-time check for container engines, which receive the source itself: a Hugging Face id or a path
 * inside the container stays as given (this server never reads it); an http(s) URL follows the URL rules
 * as far as they can be checked here; file:// means this machine's files, which a container has not.
 */
export function checkContainerSource(raw: string, rules: ModelSourceSettings): void {
  const source = raw.trim();
  if (/^https?:\/\//i.test(source)) {
    const problem = urlProblem(source, rules);
    if (problem) throw invalid(field, problem);
  } else if (/^file:\/\//i.test(source)) {
    throw invalid(field, "a container engine reads a path inside its container: give the path, not file://");
  }
}

/** Whether an artifact_uri may be registered: the URL rules apply at once; paths are checked at deploy. */
export function artifactProblem(raw: string, rules: ModelSourceSettings): string | undefined {
  let source: ModelSource;
  try {
    source = parseModelSource(raw);
  } catch {
    return "use a path, or a file:// or http(s):// URL";
  }
  if (source.kind === "registry") return "cannot point to the registry itself";
  return source.kind === "http" ? urlProblem(source.url, rules) : undefined;
}

export type ResolvedModel =
  | { state: "ready"; path: string }
  | { state: "pending" }
  | { state: "failed"; reason: string };

const maxRedirects = 5;

/** Downloads of http(s) sources, one at a time per URL, into the first model directory. */
export class ModelFetcher {
  private readonly downloads = new Map<string, { done?: string; error?: string; ended: Promise<void> }>();

  constructor(readonly rules: ModelSourceSettings) {}

  private get dir(): string {
    return this.rules.dirs[0] as string;
  }

  pathFor(url: string): string {
    const name = basename(new URL(url).pathname) || "model.gguf";
    const hash = createHash("sha256").update(url).digest("hex").slice(0, 16);
    return join(this.dir, `${hash}-${name.replace(/[^A-Za-z0-9._-]/g, "_")}`);
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
      const entry: { done?: string; error?: string; ended: Promise<void> } = { ended: Promise.resolve() };
      this.downloads.set(url, entry);
      entry.ended = this.download(url, path).then(
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

  /**
   * Resolves once the download of `url` under way has ended, done or failed (at once when none is):
   * `fetch` then tells which. The reconciler simply asks again on its next pass.
   */
  async downloaded(url: string): Promise<void> {
    await this.downloads.get(url)?.ended;
  }

  /** GET with every hop checked: redirects are followed here, not by fetch, so each target is vetted. */
  private async get(url: string): Promise<Response> {
    let current = url;
    for (let hop = 0; hop <= maxRedirects; hop++) {
      const problem = await resolvedUrlProblem(current, this.rules);
      if (problem) throw new Error(hop === 0 ? `the URL ${problem}` : `a redirect ${problem}`);
      const res = await fetch(current, { redirect: "manual" });
      const location = res.headers.get("location");
      if (res.status >= 300 && res.status < 400 && location) {
        await res.body?.cancel();
        current = new URL(location, current).toString();
        continue;
      }
      return res;
    }
    throw new Error(`more than ${maxRedirects} redirects`);
  }

  private async download(url: string, path: string): Promise<void> {
    mkdirSync(this.dir, { recursive: true });
    const partial = `${path}.${process.pid}.part`;
    try {
      const res = await this.get(url);
      if (!res.ok || !res.body) {
        await res.body?.cancel();
        throw new Error(`HTTP ${res.status}`);
      }
      await Bun.write(partial, res);
      renameSync(partial, path);
    } catch (error) {
      rmSync(partial, { force: true });
      throw error;
    }
  }
}

/** The model file a replica loads, fetching it first when it is remote; checked again each time. */
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
    return { state: "failed", reason: error instanceof AppError ? error.message : "invalid model source" };
  }
  if (source.kind === "http") return fetcher.fetch(source.url);
  const file = await usableFile(db, orgId, source.path, fetcher.rules);
  return "problem" in file
    ? { state: "failed", reason: `${field}: ${file.problem}` }
    : { state: "ready", path: file.path };
}
