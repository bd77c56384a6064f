// The request hooks every gateway runs around its routes: admission (request id, response headers,
// body size, the gateway's own guard), problems rendered in the gateway's error style, unexpected
// errors logged, and the access macro that authorizes a request and builds its RequestContext.

import { AppError } from "#core/errors.ts";
import { isDatabaseUnreachable } from "#db/unreachable.ts";
import type { PlatformContext, PlatformRequestContext } from "#server/platform-context.ts";
import { type Authorization, authorize, type Credentials } from "#services/access/authorize.ts";
import type { Logger } from "#services/context.ts";
import { counter } from "#services/observability/counters.ts";
import { throttledWarning } from "#services/observability/throttled-log.ts";
import type { Access } from "#services/permissions.ts";
import { clientAddress, parseTrustedProxies } from "../client-address.ts";
import { httpStatusOf } from "../error-table.ts";
import { anthropicProblem, anthropicRoutes, underAnthropicRoutes } from "./anthropic-errors.ts";
import type { GatewayOptions } from "./gateway-options.ts";
import { readLimited, tooLarge } from "./input.ts";
import type { InputRules } from "./input-rules.ts";
import { openaiBody, type Problem, platformBody, problemOf } from "./problems.ts";
import { newRequestId, type RequestBook } from "./request-book.ts";

type ResponseSet = { status?: number | string; headers: Record<string, string | number> };

export interface EarlyContext {
  request: Request;
  set: { headers: Record<string, string | number>; status?: number | string };
}

export type RenderProblem = (problem: Problem, request: Request, set: ResponseSet) => unknown;

/** A problem as this gateway answers it: its own renderer (the dashboard's), else JSON in its style. */
export function problemRenderer(options: GatewayOptions, log: Logger, book: RequestBook): RenderProblem {
  const speaksAnthropic = anthropicRoutes(options.routes);
  const underAnthropic = underAnthropicRoutes(options.routes);
  return (problem, request, set) => {
    if (problem.code === "internal") log.error("unexpected error", { request_id: book.idOf(request) });
    // A refusal that says when to come back (the sign-in throttle) says it in the standard header too.
    const retryAfter = problem.details?.retry_after_s;
    if (typeof retryAfter === "number") set.headers["retry-after"] = retryAfter;
    const custom = options.renderProblem?.(problem, request);
    if (custom) return custom;
    // An unknown route under /v1/messages (Anthropic's batches, a wrong method): Anthropic's 404.
    const anthropicNotFound = problem.code === "not_found" && underAnthropic(new URL(request.url).pathname);
    if (speaksAnthropic(request) || anthropicNotFound) {
      const { status, body } = anthropicProblem(problem, book.idOf(request));
      set.status = status;
      return body;
    }
    set.status = httpStatusOf(problem);
    return options.errorStyle === "openai" ? openaiBody(problem) : platformBody(problem);
  };
}

/**
 * The first hook of every request: its id, the gateway's response headers, the body limit and read
 * deadline (every body is counted as it arrives), then the gateway's guard (the dashboard's CSRF
 * check). Synchronous unless there is something to wait for: this runs on every request.
 */
export function admission(
  options: GatewayOptions,
  book: RequestBook,
  rulesFor: (request: Request) => InputRules,
  render: RenderProblem,
) {
  /** A body counted as it arrives, within its deadline; the parsers then read this copy of it. */
  const bufferBody = async (request: Request, set: ResponseSet, limit: number): Promise<unknown> => {
    let bytes: Uint8Array<ArrayBuffer>;
    try {
      bytes = await readLimited(request, limit);
    } catch (error) {
      return render(problemOf("", error, request), request, set);
    }
    // The copy keeps the original's signal: a client that leaves still cancels the work (the upstream).
    const copy = new Request(request.url, {
      method: request.method,
      headers: request.headers,
      body: bytes,
      signal: request.signal,
    });
    book.sameAs(copy, request);
    return copy;
  };
  const guard = (request: Request, headers: ResponseSet["headers"]) => {
    if (!options.guardRequest) return undefined;
    return options.guardRequest(request, headers).then((refused) => {
      if (!refused) return undefined;
      for (const [k, v] of Object.entries(headers)) {
        if (typeof v === "string" && !refused.headers.has(k)) refused.headers.set(k, v);
      }
      return refused;
    });
  };
  const extraHeaders = options.responseHeaders ?? {};
  const hasExtraHeaders = Object.keys(extraHeaders).length > 0;
  // Elysia reads this hook's source to choose what it prepares for every request (cookies, a copy of
  // the headers): it touches only the context's request and set, and never hands the context on.
  return (early: EarlyContext) => {
    const request = early.request;
    const set = early.set;
    set.headers["x-request-id"] = book.open(request);
    if (hasExtraHeaders) Object.assign(set.headers, extraHeaders);
    const limit = rulesFor(request).limit;
    const declared = request.headers.get("content-length");
    if (declared !== null && Number(declared) > limit)
      return render(problemOf("", tooLarge(limit), request), request, set);
    // Every body is read here, against its limit and its deadline (bodyDeadlineMs: a body trickling
    // in is cut with 408), and the parsers read this copy of it.
    if (request.body && declared !== "0")
      return bufferBody(request, set, limit).then((read) => {
        if (!(read instanceof Request)) return read;
        early.request = read;
        return guard(read, set.headers);
      });
    return guard(request, set.headers);
  };
}

const databaseErrors = counter(
  "database_unreachable_errors_total",
  "Requests answered 503 because the database was unreachable.",
);

/** Errors become problems; the unexpected ones are logged, an unreachable database once in a while. */
export function errorHandler(name: string, log: Logger, book: RequestBook, render: RenderProblem) {
  const databaseDown = throttledWarning(log, "database unreachable: requests that need it get 503");
  return ({ code, error, request, set }: { code: string | number; error: unknown } & EarlyContext) => {
    if (isDatabaseUnreachable(error)) {
      databaseErrors.inc();
      databaseDown({ gateway: name, error: error instanceof Error ? error.message : String(error) });
    } else if (
      !(error instanceof AppError) &&
      code !== "VALIDATION" &&
      code !== "NOT_FOUND" &&
      code !== "PARSE"
    ) {
      log.error("unhandled exception", {
        request_id: book.idOf(request),
        error,
      });
    }
    return render(problemOf(code, error, request), request, set);
  };
}

/** The `access` macro: authorizes the request for the route's access and builds its RequestContext. */
export function accessMacro(
  app: PlatformContext,
  readCredentials: (request: Request) => Credentials,
  book: RequestBook,
  serverOf: () => import("bun").Server<unknown> | undefined,
) {
  const trustedProxies = parseTrustedProxies(app.config.trustedProxies);
  return (access: Access) => ({
    async transform(context: unknown) {
      const c = context as { request: Request; ctx?: PlatformRequestContext };
      const request = c.request;
      const auth: Authorization = await authorize(app, access, readCredentials(request));
      c.ctx = {
        ...app,
        requestId: book.idOf(request) ?? newRequestId(),
        actor: auth.actor,
        // Read when something records it (audit), not on every request: it showed in the profile.
        get ip() {
          return clientAddress(
            serverOf()?.requestIP(book.receivedOf(request))?.address,
            request.headers.get("x-forwarded-for"),
            trustedProxies,
          );
        },
        userAgent: request.headers.get("user-agent") ?? undefined,
      };
    },
  });
}
