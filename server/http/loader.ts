// File-based routes, Deno Fresh style: the file path under routes/<gateway>/ is the URL.
//   deployment/status/[deployment_id].ts  ->  /deployment/status/:deployment_id
//   management/prompts/index.ts           ->  /management/prompts
//   v1/models/[...model].ts               ->  /v1/models/*  (the rest of the path, slashes and all,
//                                              handed to the route as params.model)
// A file exports one route() per HTTP method. Files and folders starting with "_" and *.test.ts are
// not routes (partials, helpers, tests beside the routes). routes/_common/ is mounted on every gateway.

import { existsSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { propertyOf } from "#core/error-chain.ts";
import { type AnyRoute, type AnyWsRoute, type HttpMethod, httpMethods } from "./route.ts";

export interface LoadedRoute {
  method: HttpMethod;
  /** Elysia path, with :params. */
  path: string;
  /** Source file, relative to the repository, for error messages and the route table test. */
  file: string;
  definition: AnyRoute;
  /** The parameter that takes the rest of the path (`[...name].ts`), if any. */
  rest?: string | undefined;
}

/** A WebSocket route: the file's `WS` export. */
export interface LoadedWsRoute {
  path: string;
  file: string;
  definition: AnyWsRoute;
}

export const routesRoot = join(import.meta.dir, "..", "..", "routes");

export function pathOf(relativeFile: string): string {
  const segments = relativeFile
    .replace(/\.tsx?$/, "")
    .split(sep)
    .filter((s) => s !== "index")
    .map((s) => s.replace(/^\[\.\.\.\w+\]$/, "*").replace(/^\[(\w+)\]$/, ":$1"));
  return `/${segments.join("/")}`;
}

/** The name of a `[...name]` segment that takes the rest of the path. */
export const restParamOf = (relativeFile: string): string | undefined =>
  /\[\.\.\.(\w+)\]\.tsx?$/.exec(relativeFile)?.[1];

/** What route() returns: a handler and an access declaration (the rest is typed where it is written). */
function isRouteDefinition(value: unknown): value is AnyRoute {
  return typeof propertyOf(value, "handler") === "function" && Boolean(propertyOf(value, "access"));
}

/** What wsRoute() returns: open, accept and an access declaration. */
function isWsRouteDefinition(value: unknown): value is AnyWsRoute {
  return (
    typeof propertyOf(value, "open") === "function" &&
    typeof propertyOf(value, "accept") === "function" &&
    Boolean(propertyOf(value, "access"))
  );
}

export async function loadRoutes(folder: string): Promise<LoadedRoute[]> {
  return (await loadRouteFiles(folder)).http;
}

export async function loadRouteFiles(folder: string): Promise<{ http: LoadedRoute[]; ws: LoadedWsRoute[] }> {
  const dir = join(routesRoot, folder);
  if (!existsSync(dir)) return { http: [], ws: [] };
  const files = [...new Bun.Glob("**/*.{ts,tsx}").scanSync({ cwd: dir })]
    .filter((f) => !/\.test\.tsx?$/.test(f) && !f.split(sep).some((s) => s.startsWith("_")))
    .sort();
  const loaded: LoadedRoute[] = [];
  const sockets: LoadedWsRoute[] = [];
  for (const file of files) {
    const module: unknown = await import(join(dir, file));
    const where = relative(join(routesRoot, ".."), join(dir, file));
    let exported = 0;
    for (const method of httpMethods) {
      const definition = propertyOf(module, method);
      if (!definition) continue;
      if (!isRouteDefinition(definition)) {
        throw new Error(`${where}: export ${method} is not a route() with an access declaration`);
      }
      loaded.push({ method, path: pathOf(file), file: where, definition, rest: restParamOf(file) });
      exported++;
    }
    const ws = propertyOf(module, "WS");
    if (ws) {
      if (!isWsRouteDefinition(ws)) {
        throw new Error(`${where}: export WS is not a wsRoute() with an access declaration`);
      }
      sockets.push({ path: pathOf(file), file: where, definition: ws });
      exported++;
    }
    if (exported === 0) throw new Error(`${where}: exports no GET, POST, PUT, PATCH, DELETE or WS route`);
  }
  return { http: loaded, ws: sockets };
}
