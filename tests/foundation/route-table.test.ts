// Walks every route of every gateway: each declares its access, and only a known list is public.
import { expect, test } from "bun:test";
import { loadRouteFiles, pathOf, restParamOf } from "#server/http/loader.ts";
import { isPermission } from "#services/permissions.ts";

const gateways = ["_common", "inference", "filtration", "orchestration", "dashboard"];
const nonPermissionAccess = new Set(["authenticated", "internal", "node", "scim", "public"]);

/** Entry points anyone may call. Adding one is a deliberate act: it fails this test until listed. */
const publicRoutes = new Set([
  "_common GET /health",
  "_common GET /ready",
  "_common GET /metrics",
  "_common GET /openapi/assets/:file",
  "filtration POST /auth/login",
  "filtration POST /auth/refresh",
  "filtration POST /auth/register",
  // The inference gateway checks the API key in its lifecycle's first step (OpenAI error shape).
  "inference POST /v1/chat/completions",
  "inference POST /v1/embeddings",
  // Anthropic's Messages API: the same first step, the key from x-api-key too (Anthropic error shape).
  "inference POST /v1/messages",
  "inference POST /v1/messages/count_tokens",
  "inference GET /v1/models",
  "inference GET /v1/models/*",
  "inference POST /v1/completions",
  "inference POST /v1/responses",
  "inference GET /v1/responses/:response_id",
  "inference DELETE /v1/responses/:response_id",
  "inference GET /v1/responses/:response_id/input_items",
  "dashboard GET /login",
  "dashboard POST /login",
  "dashboard GET /login/verify",
  "dashboard POST /login/verify",
  "dashboard POST /logout",
  // Single sign-on: the start redirects to the identity provider, the callback checks its answer.
  "dashboard GET /login/sso/:org_id",
  "dashboard GET /login/sso/callback",
  "dashboard GET /assets/:file",
]);

test("every route declares a permission, or an access that is not one", async () => {
  let count = 0;
  for (const gateway of gateways) {
    const files = await loadRouteFiles(gateway);
    for (const r of [...files.http, ...files.ws.map((w) => ({ ...w, method: "WS" }))]) {
      count++;
      const access = r.definition.access;
      expect(
        isPermission(access) || nonPermissionAccess.has(access),
        `${r.file} ${r.method}: ${access}`,
      ).toBe(true);
      if (access === "public") {
        expect(publicRoutes.has(`${gateway} ${r.method} ${r.path}`), `${r.file} ${r.method} is public`).toBe(
          true,
        );
      }
    }
  }
  expect(count).toBeGreaterThan(5);
});

test("file paths map to URLs the Deno way", () => {
  expect(pathOf("deployment/status/[deployment_id].ts")).toBe("/deployment/status/:deployment_id");
  expect(pathOf("management/prompts/index.ts")).toBe("/management/prompts");
  expect(pathOf("index.tsx")).toBe("/");
  expect(pathOf("deployment/getModel/[name]/[version].ts")).toBe("/deployment/getModel/:name/:version");
  expect(pathOf("v1/models/[...model].ts")).toBe("/v1/models/*");
  expect(restParamOf("v1/models/[...model].ts")).toBe("model");
  expect(restParamOf("v1/models/[model].ts")).toBeUndefined();
});

test("every gRPC method of the orchestration services declares its access", async () => {
  const { grpcMethodAccess } = await import("#server/grpc/services.ts");
  const { ORCHESTRATION_SERVICES } = await import("#server/grpc/orchestration-stubs.ts");
  let count = 0;
  for (const service of ORCHESTRATION_SERVICES) {
    for (const method of service.methods) {
      const access = grpcMethodAccess.get(`${service.typeName}/${method.name}`);
      expect(access && isPermission(access), `${service.typeName}/${method.name}`).toBe(true);
      count++;
    }
  }
  expect(count).toBe(14);
});
