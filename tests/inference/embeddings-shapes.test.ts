// POST /v1/embeddings: `encoding_format` and `dimensions` are the gateway's, whatever the replica's
// engine does with them. The replica here is a stand-in that ignores both and answers base64 of a
// known vector (some servers do); the client still gets what it asked for, and the replica is always
// asked for floats without `dimensions`.
import { afterAll, beforeAll, expect, test } from "bun:test";
import OpenAI from "openai";
import { insertDeployment } from "../management/support.ts";
import { type GatewayTest, startGatewayTest } from "./support.ts";

let g: GatewayTest;
let replica: ReturnType<typeof Bun.serve>;
let model: string;
const received: unknown[] = [];
const vector = Float32Array.from([3, 4, 12, 0, 5, 7]);

beforeAll(async () => {
  g = await startGatewayTest();
  replica = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(request) {
      received.push(await request.json());
      return Response.json({
        object: "list",
        data: [{ object: "embedding", index: 0, embedding: Buffer.from(vector.buffer).toString("base64") }],
        model: "whatever",
        usage: { prompt_tokens: 3, total_tokens: 3 },
      });
    },
  });
  model = `embed-${crypto.randomUUID().slice(0, 6)}`;
  await insertDeployment(g.o.t.app.db, g.o.orgId, {
    name: model,
    replicas: [{ state: "READY", endpoint: `http://127.0.0.1:${replica.port}/v1` }],
  });
}, 30_000);
afterAll(async () => {
  replica.stop(true);
  await g.close();
}, 30_000);

const embed = async (fields: object) => {
  const res = await fetch(`${g.url}/v1/embeddings`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${g.key}` },
    body: JSON.stringify({ model, input: "hello", ...fields }),
  });
  const answer: unknown = await res.json();
  return {
    status: res.status,
    body: answer as OpenAI.CreateEmbeddingResponse,
    error: (answer as { error?: OpenAI.ErrorObject }).error,
  };
};
/** Float32 values to six decimals. */
const rounded = (values: number[] | undefined) => values?.map((x) => Math.round(x * 1e6) / 1e6);

test("float: the replica's base64 read back as numbers, the replica asked for floats", async () => {
  const { status, body } = await embed({ encoding_format: "float" });
  expect(status).toBe(200);
  expect(body.data[0]?.embedding).toEqual([3, 4, 12, 0, 5, 7]);
  expect(body.model).toBe(model);
  expect(received.at(-1)).toMatchObject({ model, encoding_format: "float" });
});

test("dimensions: the first values scaled to length 1; the replica never sees the parameter", async () => {
  const { body } = await embed({ dimensions: 2 });
  expect(rounded(body.data[0]?.embedding)).toEqual([0.6, 0.8]);
  expect(received.at(-1)).not.toHaveProperty("dimensions");
  const three = await embed({ dimensions: 3 });
  expect(rounded(three.body.data[0]?.embedding)).toEqual([0.230769, 0.307692, 0.923077]);
});

test("base64 with dimensions, as the openai SDK asks by default and decodes", async () => {
  const client = new OpenAI({ apiKey: g.key, baseURL: `${g.url}/v1`, maxRetries: 0 });
  const answer = await client.embeddings.create({ model, input: "hello", dimensions: 2 });
  expect(rounded(answer.data[0]?.embedding)).toEqual([0.6, 0.8]);
  expect(received.at(-1)).toMatchObject({ encoding_format: "float" });
});

test("dimensions above the model's is 400 with param dimensions", async () => {
  const { status, error } = await embed({ dimensions: 7 });
  expect(status).toBe(400);
  expect(error).toMatchObject({
    type: "invalid_request_error",
    param: "dimensions",
    code: "invalid_request_error",
  });
});
