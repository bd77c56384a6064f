// File-based routes, Deno Fresh style: the file path under routes/<gateway>/ is the URL.
//   deployment/status/[deployment_id].ts  ->  /deployment/status/:deployment_id
//   management/prompts/index.ts           ->  /management/prompts
// A file exports one route() per HTTP method. Files and folders starting with "_" and *.test.ts are
// not routes (partials, helpers, tests beside the routes). routes/_common/ is mounted on every gateway.
import { existsSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { type AnyRoute, type HttpMethod, httpMethods } from "./route.ts";

export interface LoadedRoute {
  method: HttpMethod;
  /** Elysia path, with :params. */
  path: string;
  /** Source file, relative to the repository, for error messages and the route table test. */
  file: string;
  definition: AnyRoute;
}

export const routesRoot = join(import.meta.dir, "..", "..", "routes");

export function pathOf(relativeFile: string): string {
  const segments = relativeFile
    .replace(/\.tsx?$/, "")
    .split(sep)
    .filter((s) => s !== "index")
    .map((s) => s.replace(/^\[(\w+)\]$/, ":$1"));
  return `/${segments.join("/")}`;
}

export async function loadRoutes(folder: string): Promise<LoadedRoute[]> {
  const dir = join(routesRoot, folder);
  if (!existsSync(dir)) return [];
  const files = [...new Bun.Glob("**/*.{ts,tsx}").scanSync({ cwd: dir })]
    .filter((f) => !/\.test\.tsx?$/.test(f) && !f.split(sep).some((s) => s.startsWith("_")))
    .sort();
  const loaded: LoadedRoute[] = [];
  for (const file of files) {
    const module = (await import(join(dir, file))) as Record<string, unknown>;
    const where = relative(join(routesRoot, ".."), join(dir, file));
    let exported = 0;
    for (const method of httpMethods) {
      const definition = module[method] as AnyRoute | undefined;
      if (!definition) continue;
      if (typeof definition.handler !== "function" || !definition.access) {
        throw new Error(`${where}: export ${method} is not a route() with an access declaration`);
      }
      loaded.push({ method, path: pathOf(file), file: where, definition });
      exported++;
    }
    if (exported === 0) throw new Error(`${where}: exports no GET, POST, PUT, PATCH or DELETE route`);
  }
  return loaded;
}
