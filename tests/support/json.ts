// JSON answers of the platform's own APIs as tests read them, typed by what they expect: a route file's
// export gives its success response schema's type, any other type is the body's own. `call` (app.ts)
// answers in-process requests with them; `fetchJson` and `jsonBody` answer requests over real ports.
import type { Static, TSchema } from "@sinclair/typebox";

/**
 * The body type `call` gives back. A route file's export (`call<typeof POST>(...)`) gives its success
 * response schema's type; any other type is taken as the body's own (`call<{ id: string }>(...)`).
 */
export type BodyOf<R> = R extends { response?: infer S extends TSchema } ? Static<S> : R;

/** The filtration and orchestration gateways' error envelope (CONTRACTS: Errors): `call<ErrorBody>`. */
export interface ErrorBody {
  error: { code: string; message: string; details?: { fields?: { field: string; message: string }[] } };
}

/** GET /ready's answer on every gateway (routes/_common/ready.ts answers it without a response schema). */
export interface ReadinessBody {
  status: "ready" | "not_ready";
  checks: Record<string, string>;
}

/** What `call` answers: the status, the parsed JSON body (or the text when it is not JSON), headers. */
export interface CallResult<Body> {
  status: number;
  body: Body;
  headers: Headers;
}

/**
 * `call` over a real port, for a platform started as a process: `fetchJson<typeof POST>(url, { body, token })`.
 * The method is POST when there is a body, GET otherwise, unless given.
 */
export async function fetchJson<R = unknown>(
  url: string,
  options: { method?: string; body?: unknown; token?: string; headers?: Record<string, string> } = {},
): Promise<CallResult<BodyOf<R>>> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  const body = options.body === undefined ? undefined : JSON.stringify(options.body);
  if (body !== undefined) headers["content-type"] ??= "application/json";
  const method = options.method ?? (body === undefined ? "GET" : "POST");
  return resultOf<R>(await fetch(url, { method, headers, body }));
}

/**
 * The body of an answer a test got as a `Response` (from a helper that leaves status, headers or a
 * stream to the test), typed as `call` types it: `(await jsonBody<OpenAIError>(response)).error.code`.
 */
export async function jsonBody<R = unknown>(response: Response): Promise<BodyOf<R>> {
  return (await resultOf<R>(response)).body;
}

/**
 * A JSON body a helper kept as text (it reads streams and JSON alike), parsed and typed as `call` types
 * it: `parsedJson<ChatCompletion>(answer.body)`. Throws, as JSON.parse does, when it is not JSON.
 */
export function parsedJson<R = unknown>(text: string): BodyOf<R> {
  const parsed: unknown = JSON.parse(text);
  // The text is the server's JSON: its type is the contract the test names.
  return parsed as BodyOf<R>;
}

/** The status, the parsed JSON body (or the text when it is not JSON) and the headers of an answer. */
export async function resultOf<R>(response: Response): Promise<CallResult<BodyOf<R>>> {
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {}
  // The body is the server's JSON: its type is the route's contract, which the server checks it against.
  return { status: response.status, body: parsed as BodyOf<R>, headers: response.headers };
}
