// What a route file exports: one `route({...})` per HTTP method (GET, POST, PUT, PATCH, DELETE).
// The loader mounts it; the guard enforces `access`; TypeBox schemas validate and document it.
import type { Static, TSchema } from "@sinclair/typebox";
import type { PlatformRequestContext } from "#server/platform-context.ts";
import type { Access } from "#services/permissions.ts";
import type { HttpMetrics } from "./metrics.ts";

export type GatewayName = "inference" | "filtration" | "orchestration" | "dashboard";

/** What a route may know of the gateway serving it (health, readiness and metrics routes). */
export interface GatewayRuntime {
  name: GatewayName;
  metrics: HttpMetrics;
  /** Each dependency's state: "ok" or what is wrong. */
  readiness(): Promise<Record<string, string>>;
}

/** The error statuses the gateways answer (CONTRACTS: Errors). */
export type ErrorStatus = 400 | 401 | 403 | 404 | 409 | 413 | 422 | 429 | 500 | 502 | 503 | 504;

export const httpMethods = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;
export type HttpMethod = (typeof httpMethods)[number];

export interface RouteInput<P, Q, B> {
  params: P;
  query: Q;
  body: B;
  ctx: PlatformRequestContext;
  request: Request;
  headers: Record<string, string | undefined>;
  /** Response headers to add (and cookies, as Set-Cookie values). */
  set: { headers: Record<string, string | number>; status?: number | string };
  gateway: GatewayRuntime;
}

export interface RouteDefinition<
  P extends TSchema = TSchema,
  Q extends TSchema = TSchema,
  B extends TSchema = TSchema,
  R extends TSchema = TSchema,
> {
  access: Access;
  summary: string;
  description?: string;
  tags?: string[];
  params?: P;
  query?: Q;
  body?: B;
  /** The success body. Omit for routes that answer with a Response (streams, redirects, HTML). */
  response?: R;
  /** The success status; 200 unless set (201 for a creation). */
  status?: number;
  /**
   * "json": a body of any `application/<name>+json` media type is JSON too (SCIM's
   * `application/scim+json`, which Elysia would otherwise not parse).
   */
  parse?: "json";
  /** Bytes allowed in the request body; the gateway's default otherwise. */
  bodyLimit?: number;
  /**
   * The body carries free text (prompts, documents, model output): its strings may hold any character
   * but NUL. Elsewhere control characters other than tab, line feed and carriage return are refused.
   */
  freeText?: true;
  /** HTML page: answered as text/html and left out of the OpenAPI document. */
  html?: boolean;
  /**
   * Error statuses the route may answer beyond those the gateway documents for every route (400 when
   * it takes input, 401 and 403 when it needs credentials, 413 when it takes a body, 500), each
   * documented with the gateway's error envelope (server/http/openapi.ts).
   */
  errors?: readonly ErrorStatus[];
  /**
   * The route answers server-sent events when asked to stream: the schema of one event's `data`,
   * documented as text/event-stream beside the JSON response.
   */
  stream?: TSchema;
  /**
   * The JSON answer when it is a model server's answer the gateway relays: documented as the success
   * response but not checked (a replica's extra fields pass through untouched, and the hot path pays
   * no response validation). Use `response` for answers the platform builds itself.
   */
  relayed?: TSchema;
  /** The handler checks an inference API key itself (Authorization: Bearer sk-…); documented so. */
  apiKey?: boolean;
  /** Errors in Anthropic's shape and statuses instead of the gateway's (the Messages API routes). */
  errorStyle?: "anthropic";
  handler(
    input: RouteInput<Static<P>, Static<Q>, Static<B>>,
  ): Promise<Static<R> | Response> | Static<R> | Response;
}

// biome-ignore lint/suspicious/noExplicitAny: the loader handles routes of every shape alike.
export type AnyRoute = RouteDefinition<any, any, any, any>;

export const route = <P extends TSchema, Q extends TSchema, B extends TSchema, R extends TSchema>(
  definition: RouteDefinition<P, Q, B, R>,
): RouteDefinition<P, Q, B, R> => definition;

/** The socket a WebSocket route writes to: JSON messages out, and a way to hang up. */
export interface WsSocket {
  send(message: unknown): void;
  close(code?: number, reason?: string): void;
}

/**
 * A WebSocket route (export `WS`): `accept` runs before the upgrade, with the caller already
 * authorized, and may refuse with an AppError (answered as an HTTP error, no upgrade); `open` starts
 * sending and returns what to do when the socket closes. Messages from the client are ignored.
 */
export interface WsRouteDefinition<P extends TSchema = TSchema, S = unknown> {
  access: Access;
  summary: string;
  params?: P;
  accept(input: { params: Static<P>; ctx: PlatformRequestContext; request: Request }): Promise<S> | S;
  open(state: S, socket: WsSocket): (() => void) | Promise<() => void>;
}

// biome-ignore lint/suspicious/noExplicitAny: the loader handles WebSocket routes of every shape alike.
export type AnyWsRoute = WsRouteDefinition<any, any>;

export const wsRoute = <P extends TSchema, S>(definition: WsRouteDefinition<P, S>): WsRouteDefinition<P, S> =>
  definition;
