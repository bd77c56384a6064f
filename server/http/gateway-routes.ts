// How a gateway mounts what the loader found: each HTTP route with its access, schemas and OpenAPI
// details (the handler gets its input and the gateway's runtime), and each WebSocket route.

import { type AnyElysia, ParseError } from "elysia";
import { propertyOf } from "#core/error-chain.ts";
import { AppError } from "#core/errors.ts";
import type { PlatformRequestContext } from "#server/platform-context.ts";
import { watchSession } from "#services/auth/session.ts";
import type { Access } from "#services/permissions.ts";
import type { GatewayOptions } from "./gateway-options.ts";
import type { LoadedRoute, LoadedWsRoute } from "./loader.ts";
import type { RequestBook } from "./request-book.ts";
import type { GatewayRuntime, RouteInput } from "./route.ts";
import { isMultipart, strictJson } from "./strict-json.ts";

/**
 * Bodies whose media type is `application/<something>+json` (SCIM's `application/scim+json`) parsed
 * as JSON; anything else is left to Elysia's own parsers.
 */
async function structuredJson({ request, contentType }: { request: Request; contentType: string }) {
  if (!/^application\/[\w.-]+\+json\b/i.test(contentType ?? "")) return undefined;
  const text = await request.text();
  if (text === "") return undefined;
  try {
    const parsed: unknown = JSON.parse(text);
    return parsed;
  } catch {
    throw new ParseError();
  }
}

/** What Elysia hands a route's handler, less what the gateway adds (its runtime, the headers on demand). */
type RouteContext = Omit<RouteInput<unknown, unknown, unknown>, "gateway" | "headers">;

/** The options of an Elysia route that the gateway sets: access (its macro), validation and OpenAPI. */
interface RouteHook {
  access: Access;
  detail: { summary: string; description?: string; tags: string[]; hide?: boolean } & ReturnType<
    typeof securityOf
  >;
  params?: unknown;
  query?: unknown;
  parse?: typeof structuredJson;
  body?: unknown;
  response?: { [status: number]: unknown };
}

/** Mounts an HTTP route: the hook the access macro and Elysia's validation read, then the handler. */
export function mountRoute(
  gateway: AnyElysia,
  r: LoadedRoute,
  options: GatewayOptions,
  runtime: GatewayRuntime,
  book: RequestBook,
): void {
  const d = r.definition;
  const hook: RouteHook = {
    access: d.access,
    detail: {
      summary: d.summary,
      ...(d.description ? { description: d.description } : {}),
      tags: d.tags ?? [r.path.split("/")[1] ?? options.name],
      ...(d.html ? { hide: true } : {}),
      ...securityOf(d.access),
    },
  };
  // A rest-of-path parameter arrives as Elysia's "*"; the handler gets it by the file's name for it.
  if (d.params && !r.rest) hook.params = d.params;
  if (d.query) hook.query = d.query;
  if (d.parse === "json") hook.parse = structuredJson;
  if (d.body) hook.body = options.formBodies || isMultipart(d.body) ? d.body : strictJson(d.body);
  if (d.response) hook.response = { [d.status ?? 200]: strictJson(d.response) };
  gateway.route(
    r.method,
    r.path,
    // Elysia reads this function's source to choose what it prepares for each request: the headers
    // are not named on the context (Elysia would copy them for every request), the handler that wants
    // them reads them from the request, once.
    async (context: unknown) => {
      const c = context as RouteContext;
      const request = c.request;
      let headers: Record<string, string> | undefined;
      const result = await d.handler({
        params: r.rest ? restParams(r.rest, c.params) : c.params,
        query: c.query,
        body: c.body,
        ctx: c.ctx,
        request,
        get headers() {
          headers ??= request.headers.toJSON();
          return headers;
        },
        set: c.set,
        gateway: runtime,
      } as never);
      if (result instanceof Response) return book.measuredToEnd(result, request, r.path);
      // Elysia starts every response at 200; a handler that chose another status keeps it.
      if (d.status && (c.set.status === undefined || c.set.status === 200)) c.set.status = d.status;
      if (d.html) c.set.headers["content-type"] = "text/html; charset=utf-8";
      return result;
    },
    hook as never,
  );
}

/** Mounts a WebSocket route: the access macro authorizes the upgrade, `accept` may refuse it. */
export function mountSocket(
  gateway: { ws: (path: string, options: never) => unknown },
  r: LoadedWsRoute,
): void {
  const d = r.definition;
  const cleanups = new WeakMap<object, () => void>();
  const closed = new WeakSet<object>();
  interface SocketContext {
    params: unknown;
    ctx: PlatformRequestContext;
    request: Request;
    accepted?: unknown;
  }
  interface Socket {
    raw: object;
    data: SocketContext;
    send(data: string): unknown;
    close(code?: number, reason?: string): unknown;
  }
  gateway.ws(r.path, {
    access: d.access,
    ...(d.params ? { params: d.params } : {}),
    // OpenAPI cannot describe a WebSocket; the HTTP route that hands out its URL documents it.
    detail: { summary: d.summary, hide: true },
    async beforeHandle(context: SocketContext) {
      context.accepted = await d.accept({
        params: context.params,
        ctx: context.ctx,
        request: context.request,
      });
    },
    async open(ws: Socket) {
      const stop = await d.open(ws.data.accepted, {
        send: (message) => ws.send(JSON.stringify(message)),
        close: (code, reason) => ws.close(code, reason),
      });
      // A socket lives as long as the session that opened it: a sign-out or a revocation closes it
      // (1008, policy violation) within about a second.
      const actor = ws.data.ctx.actor;
      const unwatch = actor
        ? watchSession(ws.data.ctx, actor, () => ws.close(1008, "the session ended"))
        : () => {};
      const cleanup = () => {
        unwatch();
        stop();
      };
      if (closed.has(ws.raw)) cleanup();
      else cleanups.set(ws.raw, cleanup);
    },
    close(ws: Socket) {
      closed.add(ws.raw);
      cleanups.get(ws.raw)?.();
      cleanups.delete(ws.raw);
    },
  } as never);
}

/** `{ [name]: the rest of the path }`, percent-decoded (clients may encode the slashes or not). */
function restParams(name: string, params: unknown): Record<string, string> {
  const rest = propertyOf(params, "*");
  const raw = typeof rest === "string" ? rest : "";
  try {
    return { [name]: decodeURIComponent(raw) };
  } catch {
    throw new AppError("validation_error", `${name} is not a valid URL path`, {
      fields: [{ field: name, message: "is not a valid URL path" }],
    });
  }
}

function securityOf(access: Access): { security?: Record<string, string[]>[] } {
  if (access === "public") return { security: [] };
  if (access === "internal") return { security: [{ internalKey: [] }] };
  if (access === "node") return { security: [{ bearer: [] }, { internalKey: [] }] };
  return { security: [{ bearer: [] }] };
}
