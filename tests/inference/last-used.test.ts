// "Last used" of a key is right within seconds of calls through the inference gateway (the uses are
// noted in memory and written in one statement every five seconds).
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { GET as listKeysRoute } from "#routes/filtration/management/api-keys/index.ts";
import { eventually } from "../orchestration/support.ts";
import { call } from "../support/app.ts";
import { chat, type GatewayTest, startGatewayTest } from "./support.ts";

let g: GatewayTest;
beforeAll(async () => {
  g = await startGatewayTest();
}, 30_000);
afterAll(() => g.close(), 30_000);

test("two calls through the gateway show as the key's last use within seconds", async () => {
  const before = Date.now();
  expect((await chat(g)).status).toBe(200);
  expect((await chat(g)).status).toBe(200);
  const lastUsed = await eventually(async () => {
    const { body } = await call<typeof listKeysRoute>(g.o.filtration, "GET", "/management/api-keys", {
      token: g.o.token,
    });
    const mine = body.api_keys.find((k) => g.key.startsWith(k.prefix));
    return mine?.last_used_at ?? undefined;
  }, 8_000);
  expect(Date.parse(lastUsed)).toBeGreaterThanOrEqual(before - 1000);
}, 30_000);
