// Builds one HTTP gateway: an Elysia app with the routes the loader found, the access guard, the
// error envelope, request ids, a JSON log line and metrics per request, a body size limit and the
// OpenAPI document. Every gateway is made here, so they all behave alike; its parts are named beside
// it: gateway-hooks.ts (admission, errors, access), request-book.ts (ids, metrics, log lines),
// input-rules.ts, readiness.ts, gateway-routes.ts (mounting routes) and gateway-docs.ts (OpenAPI).
import { Elysia } from "elysia";
import type { Credentials } from "#services/access/authorize.ts";
import { docsPlugin, mountDocument } from "./gateway-docs.ts";
import { accessMacro, admission, errorHandler, problemRenderer } from "./gateway-hooks.ts";
import type { GatewayOptions } from "./gateway-options.ts";
import { mountRoute, mountSocket } from "./gateway-routes.ts";
import { checkJsonValue, checkParameters } from "./input.ts";
import { inputRules } from "./input-rules.ts";
import { HttpMetrics } from "./metrics.ts";
import { readinessOf } from "./readiness.ts";
import { requestBook } from "./request-book.ts";
import type { GatewayName, GatewayRuntime } from "./route.ts";

export type { GatewayName, GatewayOptions, GatewayRuntime };

export const defaultBodyLimit = 1024 * 1024;

export const bearerOf = (request: Request): string | undefined => {
  const header = request.headers.get("authorization");
  return header?.toLowerCase().startsWith("bearer ") ? header.slice(7).trim() : undefined;
};

export const headerCredentials = (request: Request): Credentials => ({
  bearer: bearerOf(request),
  internalKey: request.headers.get("x-internal-api-key") ?? undefined,
});

/**
 * A browser cannot set headers on a WebSocket, so an upgrade request may carry the access token as
 * `?access_token=` instead (only there: elsewhere a token in a URL ends up in logs and histories).
 */
const withSocketToken =
  (read: (request: Request) => Credentials) =>
  (request: Request): Credentials => {
    const credentials = read(request);
    if (credentials.bearer || request.headers.get("upgrade")?.toLowerCase() !== "websocket")
      return credentials;
    return { ...credentials, bearer: new URL(request.url).searchParams.get("access_token") ?? undefined };
  };

export function createGateway(options: GatewayOptions) {
  const { app: appCtx, name } = options;
  const log = appCtx.log.child({ gateway: name });
  const metrics = new HttpMetrics(name, options.metrics);
  const book = requestBook(log, metrics);
  const rulesFor = inputRules(options.routes, options.bodyLimitBytes ?? defaultBodyLimit);
  const render = problemRenderer(options, log, book);
  const readCredentials = withSocketToken(options.credentials ?? headerCredentials);
  const runtime: GatewayRuntime = {
    name,
    metrics,
    readiness: () => readinessOf(appCtx, options.readinessChecks),
  };

  let server: import("bun").Server<unknown> | undefined;
  const gateway = new Elysia({ name: `gateway-${name}` })
    .onRequest(admission(options, book, rulesFor, render))
    // Before the access check and the route's schema: JSON depth, and control characters in the body
    // (as parsed, JSON or form), the query and the path parameters (server/http/input.ts).
    .onTransform(({ query, params, body, request }) => {
      checkParameters(query, "query.");
      checkParameters(params, "params.");
      if (body && typeof body === "object") checkJsonValue(body, rulesFor(request).rule);
    })
    .onError(errorHandler(name, log, book, render))
    .onAfterResponse(({ request, route, set, responseValue }) => {
      const status =
        responseValue instanceof Response
          ? responseValue.status
          : typeof set.status === "number"
            ? set.status
            : 200;
      book.answered(request, route || "unmatched", status);
    })
    .macro({ access: accessMacro(appCtx, readCredentials, book, () => server) });

  if (options.docs !== false) gateway.use(docsPlugin(options));
  for (const r of options.routes) mountRoute(gateway, r, options, runtime, book);
  for (const r of options.sockets ?? []) mountSocket(gateway, r);
  if (options.docs !== false) mountDocument(gateway, options);

  return {
    app: gateway,
    runtime,
    bindServer(s: import("bun").Server<unknown>) {
      server = s;
    },
  };
}

export type Gateway = ReturnType<typeof createGateway>;
