// NUL and other control characters sent to EVERY route of the route table, in the body (every string
// field its schema declares), the query and the path parameters: each is refused with 400 in its
// gateway's shape, never a 500 (PostgreSQL text cannot hold NUL; a failed statement used to be a 500
// and a log line with its parameters).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Kind, type TSchema } from "@sinclair/typebox";
import type { OpenAIError } from "#contracts/openai/error.ts";
import { AppError } from "#core/errors.ts";
import { users } from "#db/schema/index.ts";
import { errorFields, withoutStatements } from "#server/error-fields.ts";
import { checkJsonValue } from "#server/http/input.ts";
import { type LoadedRoute, loadRouteFiles } from "#server/http/loader.ts";
import { call, type ErrorBody, type Handler, loginAsAdmin, type TestApp } from "../support/app.ts";
import { startGateways } from "../support/callers.ts";

const gateways = ["inference", "filtration", "orchestration", "dashboard"] as const;
type GatewayName = (typeof gateways)[number];
const bad = "a\u0000b";

let t: TestApp;
let handlers: Record<GatewayName, Handler>;
const routes = {} as Record<GatewayName, LoadedRoute[]>;
let token: string;

/**
 * What the test reads of a 400, in whichever gateway's shape it comes: Anthropic's (`type`, `error`),
 * OpenAI's (`error` with `param`), SCIM's (`schemas`, `detail`) or the platform's envelope. One call
 * answers one of them, chosen by the route, so every part is optional.
 */
interface RefusalBody {
  type?: string;
  error?: {
    type?: string;
    message?: string;
    param?: string | null;
    code?: string;
    details?: { fields?: { field: string; message: string }[] };
  };
  schemas?: string[];
  detail?: string;
}

beforeAll(async () => {
  ({ t, handlers } = await startGateways(gateways));
  for (const name of gateways) {
    // The route table as each gateway mounts it (the dashboard leaves out the OpenAPI assets).
    routes[name] = [...(await loadRouteFiles("_common")).http, ...(await loadRouteFiles(name)).http].filter(
      (r) => name !== "dashboard" || !r.path.startsWith("/openapi"),
    );
  }
  token = (await loginAsAdmin(handlers.filtration)).access_token;
}, 60_000);
afterAll(() => t.close());

/** A value of the schema in which every free string holds `text` (literals and enums keep their value). */
function sample(schema: TSchema | undefined, text: string): unknown {
  if (!schema) return undefined;
  if ("const" in schema) return schema.const;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  if (Array.isArray(schema.anyOf))
    return sample(
      schema.anyOf.find((s: TSchema) => s.type !== "null"),
      text,
    );
  switch (schema[Kind] ?? schema.type) {
    case "String":
    case "string":
      return schema.format === "date-time" ? new Date().toISOString() : text;
    case "Number":
    case "Integer":
    case "number":
    case "integer":
      return schema.minimum ?? 1;
    case "Boolean":
    case "boolean":
      return true;
    case "Array":
    case "array":
      return [sample(schema.items, text)];
    case "Record":
      return { key: sample(Object.values(schema.patternProperties ?? {})[0] as TSchema, text) };
    case "Object":
    case "object":
      return Object.fromEntries(
        Object.entries(schema.properties ?? {}).map(([k, v]) => [k, sample(v as TSchema, text)]),
      );
    default:
      return text;
  }
}

const holdsNul = (value: unknown) => JSON.stringify(value ?? null).includes("\\u0000");

function request(gateway: GatewayName, route: LoadedRoute, input: "body" | "query" | "params") {
  const params = route.path.replace(/:\w+/g, () =>
    input === "params" ? encodeURIComponent(bad) : "00000000-0000-4000-8000-000000000000",
  );
  const queryKey = Object.keys(route.definition.query?.properties ?? {})[0] ?? "q";
  const query = input === "query" ? `?${queryKey}=${encodeURIComponent(bad)}` : "";
  const body = input === "body" ? sample(route.definition.body, bad) : undefined;
  const headers: Record<string, string> = {
    "x-internal-api-key": t.app.config.internalApiKey,
  };
  if (gateway === "dashboard") {
    headers.cookie = `llmp_csrf=csrf-token-for-the-test; llmp_session=${token}`;
    headers["x-csrf-token"] = "csrf-token-for-the-test";
  } else headers.authorization = `Bearer ${token}`;
  const hasBody = route.method !== "GET" && route.method !== "DELETE";
  let raw: string | undefined;
  if (hasBody && body !== undefined) {
    if (gateway === "dashboard") {
      headers["content-type"] = "application/x-www-form-urlencoded";
      raw = new URLSearchParams(
        Object.entries(body as Record<string, unknown>).map(([k, v]) => [
          k,
          typeof v === "string" ? v : JSON.stringify(v),
        ]),
      ).toString();
    } else raw = JSON.stringify(body);
  }
  return {
    sent: input === "body" ? hasBody && holdsNul(body) : input === "query" || route.path.includes(":"),
    go: () =>
      call<RefusalBody>(handlers[gateway], route.method, `${params}${query}`, {
        headers,
        ...(raw !== undefined ? { raw } : {}),
      }),
  };
}

describe.each(gateways)("%s gateway", (gateway) => {
  for (const input of ["body", "query", "params"] as const) {
    test(`NUL in the ${input} of every route: 400 in the gateway's shape, never 500`, async () => {
      let refused = 0;
      for (const route of routes[gateway]) {
        const { sent, go } = request(gateway, route, input);
        if (!sent) continue;
        const res = await go();
        const where = `${route.method} ${route.path} (${input})`;
        expect(res.status, where).toBe(400);
        if (route.path.startsWith("/v1/messages")) {
          // Anthropic's shape (no param): the message names the field.
          expect(res.body.type, where).toBe("error");
          expect(res.body.error?.type, where).toBe("invalid_request_error");
          expect(res.body.error?.message, where).toContain("character");
        } else if (gateway === "inference") {
          expect(res.body.error?.type, where).toBe("invalid_request_error");
          expect(res.body.error?.param, where).toBeString();
        } else if (route.path.startsWith("/scim/")) {
          // SCIM clients get RFC 7644's error body.
          expect(res.body.schemas, where).toEqual(["urn:ietf:params:scim:api:messages:2.0:Error"]);
          expect(res.body.detail, where).toContain("character");
        } else if (gateway !== "dashboard") {
          expect(res.body.error?.code, where).toBe("validation_error");
          expect(res.body.error?.details?.fields?.[0]?.message, where).toContain("character");
        }
        refused++;
      }
      expect(refused).toBeGreaterThan(0);
    }, 60_000);
  }
});

describe("the nine endpoints of the report, by name", () => {
  test("each names the field", async () => {
    const cases: [GatewayName, string, string, unknown, string][] = [
      ["filtration", "POST", "/auth/login", { email: bad, password: "x" }, "email"],
      [
        "filtration",
        "POST",
        "/auth/register",
        { email: "n@x.example", password: "long enough pw", organization_name: bad },
        "organization_name",
      ],
      ["filtration", "POST", "/management/api-keys", { name: bad }, "name"],
      ["filtration", "POST", "/management/prompts", { name: bad, user_template: "{{input}}" }, "name"],
      ["filtration", "POST", "/management/knowledge-base/collections", { name: bad }, "name"],
      ["filtration", "POST", "/admin/users", { email: bad, role: "viewer" }, "email"],
      ["filtration", "POST", "/admin/roles", { name: "r", description: bad, permissions: [] }, "description"],
      ["filtration", "GET", "/audit/logs?actor=a%00b", undefined, "query.actor"],
      [
        "orchestration",
        "POST",
        "/deployment/registerModel",
        { model_name: "m", backend: "llama.cpp", artifact_uri: bad },
        "artifact_uri",
      ],
    ];
    for (const [gateway, method, path, body, field] of cases) {
      const res = await call<ErrorBody>(handlers[gateway], method, path, {
        token,
        ...(body ? { body } : {}),
      });
      expect(res.status, path).toBe(400);
      expect(res.body.error.details?.fields?.[0]?.field, path).toBe(field);
    }
  });

  test("chat content may hold tab and line feed, not NUL (the OpenAI shape names the param)", async () => {
    const res = await call<OpenAIError>(handlers.inference, "POST", "/v1/chat/completions", {
      token: "sk-none",
      body: {
        model: "m",
        messages: [
          { role: "user", content: "line\n\tnext" },
          { role: "user", content: bad },
        ],
      },
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ type: "invalid_request_error", param: "messages[1].content" });
  });
});

describe("the rule", () => {
  const refuses = (value: unknown, rule: "strict" | "free") => {
    try {
      checkJsonValue(value, rule);
      return false;
    } catch (error) {
      return error instanceof AppError && error.code === "validation_error";
    }
  };
  test("strict: tab, LF and CR pass; other C0 controls and NUL are refused, in keys too", () => {
    expect(refuses({ a: "x\ty\nz\r" }, "strict")).toBe(false);
    for (const c of ["\u0000", "\u0001", "\u0008", "\u000b", "\u000c", "\u001b", "\u001f"]) {
      expect(refuses({ a: `x${c}` }, "strict")).toBe(true);
      expect(refuses({ [`k${c}`]: "x" }, "strict")).toBe(true);
    }
  });
  test("free text: only NUL is refused", () => {
    expect(refuses({ a: "bell\u0007 escape\u001b" }, "free")).toBe(false);
    expect(refuses({ a: ["\u0000"] }, "free")).toBe(true);
  });
});

describe("database errors in logs", () => {
  test("a failed statement is logged by SQLSTATE and message, without the statement or its parameters", async () => {
    let caught: unknown;
    try {
      await t.app.db
        .insert(users)
        .values({ email: "admin@example.com", passwordHash: "hash-that-must-not-leak" });
    } catch (error) {
      caught = error;
    }
    expect(String(caught)).toContain("hash-that-must-not-leak"); // what used to be logged
    const fields = errorFields(caught);
    expect(fields.sqlstate).toBe("23505");
    expect(fields.error).toContain("duplicate key");
    expect(JSON.stringify(fields)).not.toContain("hash-that-must-not-leak");
    expect(JSON.stringify(fields)).not.toContain("admin@example.com");
    // And a line that logs such an error as text anyway loses the statement and parameters.
    const line = withoutStatements(JSON.stringify({ msg: "x", error: String(caught) }));
    expect(line).not.toContain("hash-that-must-not-leak");
    expect(line).toContain("withheld");
  });
});
