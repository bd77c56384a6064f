// Values JSON can carry that no database column can (issue 33, findings 10 and 18): an unpaired
// surrogate ("a\ud800b" is not Unicode text; PostgreSQL refused it and the caller got a 500 "failed
// query") and an integer JSON.parse cannot hold exactly (9007199254740993), or one past a PostgreSQL
// integer column, are 400 with the field named, on every gateway; /internal/responses/save answers a
// taken id with 409 and an unknown organization with 400.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import type { OpenAIError } from "#contracts/openai/error.ts";
import { storedResponses } from "#db/schema/index.ts";
import type { POST as saveResponseRoute } from "#routes/filtration/internal/responses/save.ts";
import { type GatewayTest, startGatewayTest } from "../inference/support.ts";
import { defaultOrgId } from "../management/support.ts";
import { createPool } from "../orchestration/support.ts";
import { call, type ErrorBody, jsonBody } from "../support/app.ts";

let g: GatewayTest;
beforeAll(async () => {
  g = await startGatewayTest();
}, 30_000);
afterAll(() => g.close(), 30_000);

const lone = "a\ud800b";

const responses = (body: Record<string, unknown>) =>
  fetch(`${g.url}/v1/responses`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${g.key}` },
    body: JSON.stringify({ model: g.model, input: "Hi", store: true, ...body }),
  });

describe("an unpaired surrogate is 400, never 500", () => {
  test.each([
    ["input", { input: lone }],
    ["instructions", { instructions: lone }],
    ["user", { user: lone }],
    ["input.0.content", { input: [{ role: "user", content: lone }] }],
  ])("/v1/responses %s", async (_, body) => {
    const res = await responses(body);
    expect(res.status).toBe(400);
    const error = (await jsonBody<OpenAIError>(res)).error;
    expect(error.type).toBe("invalid_request_error");
    expect(error.message).toContain("unpaired surrogate");
  });

  test("a low surrogate alone, and one in a key, on the platform API", async () => {
    const res = await call<ErrorBody>(g.o.filtration, "POST", "/management/api-keys", {
      token: g.o.token,
      body: { name: "b\udc00" },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("validation_error");
    expect(res.body.error.details?.fields?.[0]?.field).toBe("name");
    const key = await call(g.o.filtration, "POST", "/management/api-keys", {
      token: g.o.token,
      body: { name: "ok", [lone]: 1 },
    });
    expect(key.status).toBe(400);
  });

  test("a surrogate pair (an emoji) is fine", async () => {
    const res = await responses({ input: "a \ud83d\ude00 b" });
    expect(res.status).toBe(200);
  });
});

describe("integers", () => {
  test("gpu_allocated beyond 2^53, or past a PostgreSQL integer, on /inventory/heartbeat is 400", async () => {
    const pool = await createPool(g.o, { provider: "external" });
    const beat = <R = unknown>(raw: string) =>
      call<R>(g.o.orchestration, "POST", "/inventory/heartbeat", {
        headers: { authorization: `Bearer ${pool.node_token}` },
        raw,
      });
    const inexact = await beat<ErrorBody>('{"provider_instance_id":"n1","gpu_allocated":9007199254740993}');
    expect(inexact.status).toBe(400);
    expect(inexact.body.error.details?.fields?.[0]?.field).toBe("gpu_allocated");
    expect((await beat('{"provider_instance_id":"n1","gpu_allocated":3000000000}')).status).toBe(400);
    expect((await beat('{"provider_instance_id":"n1","vcpu_allocated":1e300}')).status).toBe(400);
    expect((await beat('{"provider_instance_id":"n1","gpu_allocated":8}')).status).toBe(200);
  });
});

describe("/internal/responses/save", () => {
  const save = <R = unknown>(body: Record<string, unknown>) =>
    call<R>(g.o.filtration, "POST", "/internal/responses/save", {
      headers: { "x-internal-api-key": g.o.t.config.internalApiKey },
      body,
    });
  test("an unknown organization is 400, a taken id 409, a surrogate 400", async () => {
    // A response as the gateway stores it, then sent again under new ids.
    const answered = (await (await responses({ input: "Hi" })).json()) as { id: string };
    const [row] = await g.o.t.app.db
      .select()
      .from(storedResponses)
      .where(eq(storedResponses.id, answered.id));
    if (!row) throw new Error("the response was not stored");
    const record = (orgId: string, id = `resp_${crypto.randomUUID().replaceAll("-", "")}`) => ({
      id,
      org_id: orgId,
      conversation: row.conversation,
      body: { ...row.body, id },
    });
    const orgId = await defaultOrgId(g.o.t.app.db);
    const first = record(orgId);
    const stored = await save<typeof saveResponseRoute>(first);
    expect(stored.body).toEqual({ stored: true });
    expect((await save(first)).status).toBe(409);
    const unknown = await save<ErrorBody>(record(crypto.randomUUID()));
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.details?.fields?.[0]?.field).toBe("org_id");
    const bad = record(orgId);
    expect((await save({ ...bad, conversation: [{ role: "user", content: lone }] })).status).toBe(400);
  });
});
