// GET /v1/models/{model}: OpenAI's model object for a deployment the key may use, whatever "/" and ":"
// its name holds; 404 model_not_found for any other name, another organization's deployment included.
import { afterAll, beforeAll, expect, test } from "bun:test";
import OpenAI from "openai";
import type { OpenAIError } from "#contracts/openai/error.ts";
import type { ModelObject } from "#contracts/openai/models.ts";
import { insertDeployment } from "../management/support.ts";
import { createOrganization, jsonBody } from "../support/app.ts";
import { createKey, type GatewayTest, startGatewayTest } from "./support.ts";

let g: GatewayTest;
let client: OpenAI;
const slashed = `acme/llama-3.2:q4_${crypto.randomUUID().slice(0, 6)}`;
beforeAll(async () => {
  g = await startGatewayTest();
  client = new OpenAI({ baseURL: `${g.url}/v1`, apiKey: g.key, maxRetries: 0 });
  await insertDeployment(g.o.t.app.db, g.o.orgId, { name: slashed });
}, 30_000);
afterAll(() => g.close(), 30_000);

const get = (path: string, key: string | null = g.key) =>
  fetch(`${g.url}${path}`, { headers: key ? { authorization: `Bearer ${key}` } : {} });

async function expectNotFound(response: Response) {
  expect(response.status).toBe(404);
  const { error } = await jsonBody<OpenAIError>(response);
  expect(error).toMatchObject({ type: "invalid_request_error", code: "model_not_found", param: "model" });
}

test("200: the model object, through the openai SDK (which percent-encodes the name)", async () => {
  const model = await client.models.retrieve(g.model);
  expect(model).toMatchObject({ id: g.model, object: "model", owned_by: "platform" });
  expect(Number.isInteger(model.created)).toBe(true);
  const named = await client.models.retrieve(slashed);
  expect(named.id).toBe(slashed);
});

test("200: a name with / and : sent as it is in the path", async () => {
  const response = await get(`/v1/models/${slashed}`);
  expect(response.status).toBe(200);
  expect((await jsonBody<ModelObject>(response)).id).toBe(slashed);
});

test("404 model_not_found: no such deployment", async () => {
  await expectNotFound(await get("/v1/models/no-such-model"));
  await expectNotFound(await get(`/v1/models/${slashed}/extra`));
  const error = await client.models.retrieve("no/such:model").catch((e: unknown) => e);
  expect(error).toBeInstanceOf(OpenAI.NotFoundError);
});

test("404 model_not_found: another organization's deployment, and one the key is not scoped to", async () => {
  const otherOrg = await createOrganization(g.o.t, `other-${crypto.randomUUID().slice(0, 6)}`);
  const theirs = `theirs-${crypto.randomUUID().slice(0, 6)}`;
  await insertDeployment(g.o.t.app.db, otherOrg, { name: theirs });
  await expectNotFound(await get(`/v1/models/${theirs}`));
  const scoped = await createKey(g.o, { deployment_ids: [g.deploymentId] });
  expect((await get(`/v1/models/${g.model}`, scoped)).status).toBe(200);
  await expectNotFound(await get(`/v1/models/${slashed}`, scoped));
});

test("401 invalid_api_key without a key", async () => {
  const response = await get(`/v1/models/${g.model}`, null);
  expect(response.status).toBe(401);
  expect((await jsonBody<OpenAIError>(response)).error.code).toBe("invalid_api_key");
});
