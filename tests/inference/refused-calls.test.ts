// A call refused before it reaches a deployment is logged where its key's owner looks: an unknown
// model, or a revoked key, shows in the organization's inference logs with the key and the code the
// caller was answered. A key that never existed belongs to no one, and is in no organization's log.
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { GET as listKeysRoute } from "#routes/filtration/management/api-keys/index.ts";
import type { GET as recentLogsRoute } from "#routes/filtration/management/deployments/recent-logs.ts";
import { call } from "../support/app.ts";
import { chat, createKey, type GatewayTest, loggedRequest, startGatewayTest } from "./support.ts";

let g: GatewayTest;
beforeAll(async () => {
  g = await startGatewayTest();
}, 30_000);
afterAll(() => g.close(), 30_000);

const recent = async () =>
  (
    await call<typeof recentLogsRoute>(
      g.o.filtration,
      "GET",
      "/management/deployments/recent-logs?limit=50",
      {
        token: g.o.token,
      },
    )
  ).body.items;

test("an unknown model is logged in the key's organization as 404 model_not_found", async () => {
  const res = await chat(g, { model: "no-such-model" });
  expect(res.status).toBe(404);
  const requestId = res.headers.get("x-request-id") as string;
  const row = await loggedRequest(g, requestId);
  expect(row).toMatchObject({
    status: 404,
    errorCode: "model_not_found",
    deploymentId: null,
    model: "no-such-model",
  });
  expect(row?.keyPrefix).toBe(g.key.slice(0, row?.keyPrefix?.length ?? 0));
  expect((await recent()).find((e) => e.request_id === requestId)).toMatchObject({ status: 404 });
});

test("a revoked key is logged in its organization as 401 invalid_api_key, with its prefix", async () => {
  const key = await createKey(g.o);
  expect((await chat(g, {}, key)).status).toBe(200);
  const keys = (
    await call<typeof listKeysRoute>(g.o.filtration, "GET", "/management/api-keys", { token: g.o.token })
  ).body.api_keys;
  const mine = keys.find((k) => key.startsWith(k.prefix));
  await call(g.o.filtration, "DELETE", `/management/api-keys/${mine?.id}`, { token: g.o.token });
  g.clock.advance(1100); // a revoked key is refused within a second
  const res = await chat(g, {}, key);
  expect(res.status).toBe(401);
  const row = await loggedRequest(g, res.headers.get("x-request-id") as string);
  expect(row).toMatchObject({ status: 401, errorCode: "invalid_api_key", keyPrefix: mine?.prefix });
});

test("a key that never existed is in no organization's log", async () => {
  const res = await chat(g, {}, `sk-${"x".repeat(48)}`);
  expect(res.status).toBe(401);
  const requestId = res.headers.get("x-request-id") as string;
  await g.runtime.logs.flush();
  expect((await recent()).some((e) => e.request_id === requestId)).toBe(false);
});
