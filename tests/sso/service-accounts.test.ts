// Machines without passwords: a client of the organization's identity provider takes a token by the
// client-credentials flow and calls the management and orchestration APIs and the gRPC port with it,
// acting with the role mapped to its client id — and nothing beyond it. Tokens for another audience,
// signed by a key the provider never published, or of an unmapped client are refused.
import { afterAll, beforeAll, expect, test } from "bun:test";
import * as grpc from "@grpc/grpc-js";
import { and, eq } from "drizzle-orm";
import { generateKeyPair, SignJWT } from "jose";
import { auditLogs } from "#db/schema/index.ts";
import type { GET as getSso } from "#routes/filtration/admin/sso/index.ts";
import { connectPlatformGrpc, type TestClient } from "../grpc/support.ts";
import { call, type Handler, loginAsAdmin, type TestApp } from "../support/app.ts";
import { startGateways } from "../support/callers.ts";
import {
  apiAudience,
  machineClient,
  platformClient,
  startTestProvider,
  type TestProvider,
} from "../support/oidc-provider.ts";
import { until } from "../support/wait.ts";

const pools = "llmplatform.orchestration.v1.ComputePoolManagerService";
let t: TestApp;
let filtration: Handler;
let orchestration: Handler;
let provider: TestProvider;
let client: TestClient;
let closeGrpc: (() => Promise<void>) | undefined;
let admin: string;
let orgId: string;

const configure = (accounts: { client_id: string; role: string }[]) =>
  call(filtration, "PUT", "/admin/sso", {
    token: admin,
    body: {
      display_name: "Test IdP",
      issuer_url: provider.issuer,
      client_id: platformClient.id,
      client_secret: platformClient.secret,
      service_audience: apiAudience,
      service_accounts: accounts,
    },
  });

beforeAll(async () => {
  provider = await startTestProvider(["http://localhost/login/sso/callback"]);
  let handlers: Record<"filtration" | "orchestration", Handler>;
  ({ t, handlers } = await startGateways(["filtration", "orchestration"]));
  ({ filtration, orchestration } = handlers);
  ({ client, close: closeGrpc } = await connectPlatformGrpc(t.app));
  const session = await loginAsAdmin(filtration);
  admin = session.access_token;
  orgId = session.user.org_id;
  expect((await configure([{ client_id: machineClient.id, role: "developer" }])).status).toBe(200);
}, 60_000);
afterAll(async () => {
  await closeGrpc?.();
  await t?.close();
  await provider?.close();
});

const grpcStatus = (token: string) => {
  const metadata = new grpc.Metadata();
  metadata.set("authorization", `Bearer ${token}`);
  return client.unary(pools, "ListPools", {}, metadata).then(
    () => grpc.status.OK,
    (e: grpc.ServiceError) => e.code,
  );
};

test("the service account's configuration is answered with the SSO configuration", async () => {
  const res = await call<typeof getSso>(filtration, "GET", "/admin/sso", { token: admin });
  expect(res.body.service_accounts).toEqual([{ client_id: machineClient.id, role: "developer" }]);
  expect(res.body.service_audience).toBe(apiAudience);
});

test("a client-credentials token acts with its mapped role on every API, and is refused outside it", async () => {
  const token = await provider.machineToken();
  expect((await call(filtration, "GET", "/management/api-keys", { token })).status).toBe(200);
  expect((await call(orchestration, "GET", `/deployment/listPools/${orgId}`, { token })).status).toBe(200);
  expect(await grpcStatus(token)).toBe(grpc.status.OK);
  // A developer manages neither roles nor the audit log.
  expect((await call(filtration, "GET", "/audit/logs", { token })).status).toBe(403);
  // Routes about the signed-in person are not for a machine.
  expect((await call(filtration, "GET", "/auth/me", { token })).status).toBe(403);
  expect((await call(filtration, "POST", "/auth/totp/setup", { token })).status).toBe(403);
  const role = await call(filtration, "POST", "/admin/roles", {
    token,
    body: { name: "robots", permissions: [] },
  });
  expect(role.status).toBe(403);
  const audited = await t.app.db
    .select()
    .from(auditLogs)
    .where(and(eq(auditLogs.action, "auth.service_account"), eq(auditLogs.outcome, "success")));
  expect(audited.length).toBe(1);
  expect(audited[0]?.actorLabel).toBe(`service-account:${machineClient.id}`);
});

test("a token for another audience is refused", async () => {
  const token = await provider.machineToken("https://another-api.test");
  expect((await call(filtration, "GET", "/management/api-keys", { token })).status).toBe(401);
  expect(await grpcStatus(token)).toBe(grpc.status.UNAUTHENTICATED);
  const refused = await t.app.db
    .select()
    .from(auditLogs)
    .where(and(eq(auditLogs.action, "auth.service_account"), eq(auditLogs.outcome, "failure")));
  expect(refused.some((r) => r.details.reason === "token_invalid")).toBe(true);
});

test("a token signed by a key the provider never published is refused", async () => {
  const { privateKey } = await generateKeyPair("RS256");
  const forged = await new SignJWT({ client_id: machineClient.id, scope: "api" })
    .setProtectedHeader({ alg: "RS256", kid: provider.kid() })
    .setIssuer(provider.issuer)
    .setAudience(apiAudience)
    .setIssuedAt()
    .setExpirationTime("5m")
    .sign(privateKey);
  expect((await call(filtration, "GET", "/management/api-keys", { token: forged })).status).toBe(401);
});

test("after a key rotation at the provider, its new tokens are accepted within a second or two", async () => {
  expect(
    (await call(filtration, "GET", "/management/api-keys", { token: await provider.machineToken() })).status,
  ).toBe(200);
  await provider.rotate();
  const token = await provider.machineToken();
  let status = 0;
  // The key set is refetched at most once a second, from the provider's server: poll until the new key
  // is known.
  const accepted = async () => {
    status = (await call(filtration, "GET", "/management/api-keys", { token })).status;
    return status === 200;
  };
  await until(accepted, { what: "the rotated key's token accepted", timeoutMs: 5000, intervalMs: 200 });
  expect(status).toBe(200);
});

test("a role change applies to the next request; an unmapped client is refused", async () => {
  const token = await provider.machineToken();
  expect((await configure([{ client_id: machineClient.id, role: "admin" }])).status).toBe(200);
  expect((await call(filtration, "GET", "/audit/logs", { token })).status).toBe(200);
  expect((await configure([])).status).toBe(200);
  expect((await call(filtration, "GET", "/management/api-keys", { token })).status).toBe(401);
});
