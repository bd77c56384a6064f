// The OpenAPI document a gateway serves at /openapi/json. @elysiajs/openapi generates it from the
// routes' TypeBox schemas; this completes it with what the generator cannot know: the error answers of
// every operation in the gateway's envelope, server-sent-event streams, rest-of-path parameters, the
// API-key security of the inference routes, the tags and servers. It also undoes what the linters
// (Redocly, Spectral; tests/foundation/openapi-lint.test.ts) refuse: `nullable` in an OpenAPI 3.1
// document, integers documented as strings (Elysia's coercing unions), form content types on JSON
// bodies.
import { type JsonObject, type JsonValue, objectIn } from "#core/json.ts";
import type { LoadedRoute } from "./loader.ts";
import type { ErrorStatus } from "./route.ts";
import { isMultipart, withoutCoercion } from "./strict-json.ts";

type Json = JsonObject;
export type ErrorStyle = "platform" | "openai" | "anthropic";

const nullableString = { type: ["string", "null"] };

const errorSchemas = {
  /** CONTRACTS: the inference gateway answers OpenAI's error body. */
  OpenAIError: {
    type: "object",
    description: "OpenAI's error body.",
    required: ["error"],
    properties: {
      error: {
        type: "object",
        required: ["message", "type", "param", "code"],
        properties: {
          message: { type: "string", description: "What went wrong, in plain words." },
          type: { type: "string", examples: ["invalid_request_error", "rate_limit_error", "server_error"] },
          param: {
            ...nullableString,
            description: "The request field at fault, e.g. `messages[0].content[1]`.",
          },
          code: {
            ...nullableString,
            examples: ["invalid_request_error", "model_not_found", "upstream_error"],
          },
        },
      },
    },
  },
  /** CONTRACTS: the Messages API routes answer Anthropic's error body (server/http/anthropic-errors.ts). */
  AnthropicError: {
    type: "object",
    description: "Anthropic's error body.",
    required: ["type", "error", "request_id"],
    properties: {
      type: { const: "error" },
      error: {
        type: "object",
        required: ["type", "message"],
        properties: {
          type: {
            type: "string",
            examples: [
              "invalid_request_error",
              "authentication_error",
              "not_found_error",
              "overloaded_error",
            ],
          },
          message: { type: "string" },
        },
      },
      request_id: { ...nullableString, description: "The request's id, as in `x-request-id`." },
    },
  },
  /** CONTRACTS: the filtration and orchestration gateways' error envelope. */
  PlatformError: {
    type: "object",
    required: ["error"],
    properties: {
      error: {
        type: "object",
        required: ["code", "message"],
        properties: {
          code: { type: "string", examples: ["validation_error", "not_found", "conflict"] },
          message: { type: "string" },
          details: {
            type: "object",
            description: "For validation_error: `fields`, each bad field and what it must be.",
            properties: {
              fields: {
                type: "array",
                items: {
                  type: "object",
                  required: ["field", "message"],
                  properties: { field: { type: "string" }, message: { type: "string" } },
                },
              },
            },
          },
        },
      },
    },
  },
};

const errorDescriptions: Record<ErrorStyle, Record<ErrorStatus, string>> = {
  openai: {
    400:
      "`invalid_request_error`: a bad body, `param` names the field; `content_policy_violation`: a guardrail " +
      "blocked it; or the replica's own refusal, its message, type, param and code passed through",
    401: "`invalid_api_key`",
    403: "`model_not_allowed`: the key is scoped to other deployments",
    404: "`model_not_found`: no deployment of that name for this key; `not_found`: no such route or stored response",
    409: "Conflict, passed through from the replica",
    413: "`payload_too_large`: the body is over the gateway's limit",
    422: "The replica refused the request, passed through",
    429: "`rate_limit_exceeded` (with `Retry-After` and the `x-ratelimit-*` headers) or `insufficient_quota`",
    500: "`internal`: an unexpected error, logged",
    502: "`upstream_error`: the model's server failed, answered badly or could not be reached",
    503: "`deployment_unavailable`: no ready replica",
    504: "`upstream_timeout`: the model's server did not answer in time",
  },
  anthropic: {
    400: "`invalid_request_error`: a bad body, an image or document block, a replica's refusal",
    401: "`authentication_error`: no key, or not a valid one (x-api-key or Authorization: Bearer)",
    403: "`permission_error`: the key is scoped to other deployments",
    404: "`not_found_error`: no deployment of that name",
    409: "`invalid_request_error`",
    413: "`request_too_large`: the body is over the gateway's limit",
    422: "`invalid_request_error`: the replica refused the request",
    429: "`rate_limit_error`: a rate limit, quota or budget (with `Retry-After` where it applies)",
    500: "`api_error`: an unexpected error, logged",
    502: "`api_error`: the model's server failed, answered badly or could not be reached",
    503: "Not used: no ready replica is 529 `overloaded_error`, which clients retry",
    504: "`timeout_error`: the model's server did not answer in time",
  },
  platform: {
    400: "`validation_error`: `details.fields` names each bad field",
    401: "`unauthenticated`",
    403: "`forbidden`: the caller's role lacks the permission",
    404: "`not_found`",
    409: "`conflict`: a duplicate name, or a state that forbids the operation",
    413: "`payload_too_large`",
    422: "Unprocessable",
    429: "`rate_limit_exceeded`",
    500: "`internal`: an unexpected error, logged",
    502: "`upstream_error`",
    503: "`unavailable`",
    504: "`upstream_timeout`",
  },
};

const rateLimitHeaders = {
  "Retry-After": { description: "Seconds to wait before retrying.", schema: { type: "integer" } },
  "x-ratelimit-limit-requests": { schema: { type: "integer" } },
  "x-ratelimit-remaining-requests": { schema: { type: "integer" } },
  "x-ratelimit-limit-tokens": { schema: { type: "integer" } },
  "x-ratelimit-remaining-tokens": { schema: { type: "integer" } },
};

const errorSchemaOf = {
  openai: "OpenAIError",
  platform: "PlatformError",
  anthropic: "AnthropicError",
} as const satisfies Record<ErrorStyle, keyof typeof errorSchemas>;

/** A documented error answer of the gateway's envelope: reuse it for responses a route describes itself. */
export function errorResponse(style: ErrorStyle, status: ErrorStatus): Json {
  const schema = errorSchemaOf[style];
  return {
    description: errorDescriptions[style][status],
    ...(status === 429 && style === "openai" ? { headers: rateLimitHeaders } : {}),
    content: { "application/json": { schema: { $ref: `#/components/schemas/${schema}` } } },
  };
}

/**
 * The text/event-stream answer of a streaming route: each event's `data:` is one `chunk` (JSON); the
 * stream ends with `data: [DONE]`, or with `data: {"error": …}` when the model's server fails midway.
 */
export function eventStream(chunk: JsonValue | undefined): Json {
  return {
    schema: {
      type: "string",
      description:
        "Server-sent events. Each `data:` line holds one JSON object of the schema in `x-event-data`; " +
        'the stream ends with `data: [DONE]`, or with `data: {"error": {...}}` (OpenAI\'s error body) when ' +
        "the model's server fails midway.",
    },
    ...(chunk === undefined ? {} : { "x-event-data": chunk }),
  };
}

/** The statuses every operation may answer, besides its own `errors`. */
function defaultErrors(route: LoadedRoute): ErrorStatus[] {
  const d = route.definition;
  const statuses: ErrorStatus[] = [500];
  if (d.body || d.query || d.params || route.rest) statuses.push(400);
  if (d.body) statuses.push(413);
  if (d.access !== "public") statuses.push(401, 403);
  return statuses;
}

const openapiPath = (route: LoadedRoute): string =>
  route.path.replace(/:(\w+)/g, "{$1}").replace(/\*$/, `{${route.rest ?? "path"}}`);

export interface DocumentOptions {
  style: ErrorStyle;
  routes: LoadedRoute[];
  /** Where the gateway listens by default, for `servers`. */
  defaultPort: number;
}

/** The generated document, completed; returns a new object. */
export function completeDocument(generated: unknown, options: DocumentOptions): Json {
  const document = objectIn(strip(withoutCoercion(generated))) ?? {};
  const completed: Record<string, Json> = {};
  const tags = new Set<string>();
  const securityUsed = new Set<string>();

  for (const [path, methods] of Object.entries(objectIn(document.paths) ?? {})) {
    for (const [method, value] of Object.entries(objectIn(methods) ?? {})) {
      const operation = objectIn(value);
      if (!operation) continue;
      const route = options.routes.find(
        (r) => r.method.toLowerCase() === method && r.path.replace(/:(\w+)/g, "{$1}") === path,
      );
      const finalPath = route ? openapiPath(route) : path;
      if (route) completeOperation(operation, route, options.style);
      for (const tag of arrayIn(operation.tags)) if (typeof tag === "string") tags.add(tag);
      for (const requirement of arrayIn(operation.security))
        for (const name of Object.keys(objectIn(requirement) ?? {})) securityUsed.add(name);
      completed[finalPath] ??= {};
      completed[finalPath][method] = operation;
    }
  }

  const components = objectIn(document.components) ?? {};
  const schemes = { ...objectIn(components.securitySchemes), ...securitySchemes };
  return {
    ...document,
    servers: [{ url: `http://localhost:${options.defaultPort}`, description: "The gateway's default port" }],
    tags: [...tags].sort().map((name) => ({ name })),
    paths: completed,
    components: {
      ...components,
      securitySchemes: Object.fromEntries(Object.entries(schemes).filter(([name]) => securityUsed.has(name))),
      schemas: {
        ...objectIn(components.schemas),
        [errorSchemaOf[options.style]]: errorSchemas[errorSchemaOf[options.style]],
        ...(options.routes.some((r) => r.definition.errorStyle === "anthropic")
          ? { AnthropicError: errorSchemas.AnthropicError }
          : {}),
      },
    },
  };
}

/** The elements of a JSON array, or none when the value is not one. */
const arrayIn = (value: JsonValue | undefined): JsonValue[] => (Array.isArray(value) ? value : []);

const securitySchemes = {
  bearer: {
    type: "http",
    scheme: "bearer",
    bearerFormat: "JWT",
    description: "An access token from POST /auth/login.",
  },
  internalKey: { type: "apiKey", in: "header", name: "X-Internal-API-Key" },
  anthropicKey: {
    type: "apiKey",
    in: "header",
    name: "x-api-key",
    description: "An inference API key, as Anthropic's clients send it (the Messages API routes).",
  },
  apiKey: {
    type: "http",
    scheme: "bearer",
    description: "An inference API key (`sk-…`), from POST /management/api-keys on the filtration gateway.",
  },
};

function completeOperation(operation: Json, route: LoadedRoute, style: ErrorStyle): void {
  const d = route.definition;
  if (d.apiKey)
    operation.security =
      d.errorStyle === "anthropic" ? [{ anthropicKey: [] }, { apiKey: [] }] : [{ apiKey: [] }];
  if (route.rest) addRestParameter(operation, route.rest, asJson(d.params));
  const body = objectIn(operation.requestBody);
  const bodyContent = objectIn(body?.content);
  if (body && bodyContent) {
    // Elysia documents every body as JSON, urlencoded and multipart; the gateways read one of them.
    const kind = isMultipart(d.body) ? "multipart/form-data" : "application/json";
    const chosen = bodyContent[kind] ?? Object.values(bodyContent)[0];
    body.content = chosen === undefined ? {} : { [kind]: chosen };
  }
  const responses = objectIn(operation.responses) ?? {};
  const success = String(d.status ?? 200);
  const successResponse = objectIn(responses[success]) ?? { description: d.summary };
  responses[success] = successResponse;
  if (d.relayed || d.stream) {
    const content = objectIn(successResponse.content) ?? {};
    const relayed = d.relayed && asJson(d.relayed);
    if (relayed !== undefined) content["application/json"] = { schema: relayed };
    if (d.stream) content["text/event-stream"] = eventStream(asJson(d.stream));
    successResponse.content = content;
  }
  for (const status of [...defaultErrors(route), ...(d.errors ?? [])].sort())
    responses[String(status)] ??= errorResponse(d.errorStyle ?? style, status);
  operation.responses = responses;
}

/** The rest-of-path parameter, `name`, which the generator cannot see (`*` in the route's path). */
function addRestParameter(operation: Json, name: string, params: JsonValue | undefined): void {
  operation.operationId = String(operation.operationId).replace(
    "*",
    `By${name[0]?.toUpperCase()}${name.slice(1)}`,
  );
  const properties = objectIn(objectIn(params)?.properties) ?? {};
  operation.parameters = [
    ...arrayIn(operation.parameters),
    {
      name,
      in: "path",
      required: true,
      description: "The rest of the path: it may contain `/`, sent as it is or percent-encoded.",
      schema: properties[name] ?? { type: "string" },
    },
  ];
}

/** A TypeBox schema as the document holds it. */
const asJson = (schema: unknown): JsonValue | undefined =>
  schema === undefined ? undefined : strip(withoutCoercion(JSON.parse(JSON.stringify(schema))));

/**
 * Elysia's marks the linters refuse: `nullable` (OpenAPI 3.0; in 3.1 a null is a type, and Elysia's
 * t.Nullable gives that too), `elysiaMeta`, and placeholder defaults that do not fit their type
 * (`default: "Files"` on an array of files).
 */
function strip(value: unknown): JsonValue | undefined {
  if (Array.isArray(value)) return value.map((item) => strip(item) ?? null);
  if (value === null || typeof value === "string" || typeof value === "boolean") return value;
  // What JSON.stringify writes of the rest: finite numbers as they are, other numbers as null, and
  // nothing for undefined, functions and symbols.
  if (typeof value === "number") return Number.isFinite(value) ? value : null;
  if (typeof value !== "object") return undefined;
  const out: Json = {};
  for (const [key, child] of Object.entries(value)) {
    if (key === "nullable" && typeof child === "boolean") continue;
    if (key === "elysiaMeta" && typeof child === "string") continue;
    if (key === "default" && !fitsType(child, "type" in value ? value.type : undefined)) continue;
    const stripped = strip(child);
    if (stripped !== undefined) out[key] = stripped;
  }
  return out;
}

function fitsType(value: unknown, type: unknown): boolean {
  if (typeof type !== "string") return true;
  const actual = Array.isArray(value)
    ? "array"
    : value === null
      ? "null"
      : Number.isInteger(value)
        ? "integer"
        : typeof value;
  return actual === type || (type === "number" && actual === "integer");
}
