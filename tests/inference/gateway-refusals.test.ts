// A replica's own 4xx (an image part the model cannot read) reaches the client as that status with the
// replica's error, is sent to exactly one replica, is not retried by the openai SDK, and is counted
// as what it is: a 400 in the metrics and the inference log, not a 502 and not a failing replica.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import OpenAI from "openai";
import type { OpenAIError } from "#contracts/openai/error.ts";
import { inferenceLogs } from "#db/schema/index.ts";
import { refusal, startOpenAiStub } from "#scripts/openai-stub.ts";
import { insertDeployment } from "../management/support.ts";
import { jsonBody } from "../support/json.ts";
import { chat, type GatewayTest, startGatewayTest } from "./support.ts";

let g: GatewayTest;
beforeAll(async () => {
  g = await startGatewayTest();
}, 30_000);
afterAll(() => g.close(), 30_000);

const imageMessages = [
  {
    role: "user" as const,
    content: [
      { type: "text" as const, text: "What is in this picture?" },
      { type: "image_url" as const, image_url: { url: "data:image/png;base64,iVBORw0KGgo=" } },
    ],
  },
];

/** Runs `body` with the stub refusing, and tells how many chat requests the stub received meanwhile. */
async function refusing<T>(behaviour: "refuse" | "refuse-text", body: () => Promise<T>) {
  const before = g.stub.received.length;
  g.stub.behaviour = behaviour;
  try {
    const result = await body();
    return { result, upstreamCalls: g.stub.received.length - before };
  } finally {
    g.stub.behaviour = "ok";
  }
}

describe("a replica's 400 passes through", () => {
  test("the openai SDK gets 400 with the replica's message, type, param and code, after one upstream call", async () => {
    const client = new OpenAI({ baseURL: `${g.url}/v1`, apiKey: g.key }); // maxRetries: 2, the default
    const { result: error, upstreamCalls } = await refusing("refuse", () =>
      client.chat.completions.create({ model: g.model, messages: imageMessages }).catch((e: unknown) => e),
    );
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    const apiError = error as InstanceType<typeof OpenAI.BadRequestError>;
    expect(apiError.status).toBe(400);
    expect(apiError.message).toContain(refusal.message);
    expect(apiError.param).toBe("messages[0].content[1]");
    expect(apiError.type).toBe("invalid_request_error");
    expect(apiError.code).toBe(refusal.code);
    expect(upstreamCalls).toBe(1);
  });

  test("streamed: the replica refuses before streaming, the client gets the 400, not a stream", async () => {
    const client = new OpenAI({ baseURL: `${g.url}/v1`, apiKey: g.key });
    const { result: error, upstreamCalls } = await refusing("refuse", () =>
      client.chat.completions
        .create({ model: g.model, messages: imageMessages, stream: true })
        .catch((e: unknown) => e),
    );
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as InstanceType<typeof OpenAI.BadRequestError>).param).toBe("messages[0].content[1]");
    expect(upstreamCalls).toBe(1);
  });

  test("a refusal whose body is not JSON keeps its status, with a generic OpenAI error", async () => {
    const { result: response } = await refusing("refuse-text", () => chat(g, { messages: imageMessages }));
    expect(response.status).toBe(422);
    const body = await jsonBody<OpenAIError>(response);
    expect(Object.keys(body.error).sort()).toEqual(["code", "message", "param", "type"]);
    expect(body.error.type).toBe("invalid_request_error");
    expect(body.error.message).toContain("422");
    expect(body.error.param).toBeNull();
  });

  test("never retried on another replica; the replica stays in rotation with nothing in flight", async () => {
    const second = startOpenAiStub();
    try {
      const name = `two-${crypto.randomUUID().slice(0, 6)}`;
      await insertDeployment(g.o.t.app.db, g.o.orgId, {
        name,
        replicas: [
          { state: "READY", endpoint: g.stub.baseUrl },
          { state: "READY", endpoint: second.baseUrl },
        ],
      });
      g.stub.behaviour = "refuse";
      second.behaviour = "refuse";
      const response = await chat({ ...g, model: name }, { messages: imageMessages });
      expect(response.status).toBe(400);
      g.stub.behaviour = "ok";
      second.behaviour = "ok";
      expect(g.stub.received.filter((b) => b.model === name).length + second.received.length).toBe(1);
      expect(g.runtime.balancer.inFlight(g.stub.baseUrl)).toBe(0);
      expect(g.runtime.balancer.inFlight(second.baseUrl)).toBe(0);
      // Both replicas still take requests: nothing marked either of them failed. Unrelated prompts, so
      // that prefix affinity does not keep them on one replica.
      for (let i = 0; i < 4; i++) {
        const messages = [{ role: "user", content: `Question number ${i}` }];
        expect((await chat({ ...g, model: name }, { messages })).status).toBe(200);
      }
      expect(second.received.length).toBeGreaterThanOrEqual(2);
    } finally {
      g.stub.behaviour = "ok";
      second.stop();
    }
  });

  test("counted as a 400 in the metrics and the inference log, not as a 502", async () => {
    const { result: response } = await refusing("refuse", () => chat(g, { messages: imageMessages }));
    expect(response.status).toBe(400);
    const requestId = response.headers.get("x-request-id") as string;
    await g.runtime.logs.flush();
    const [row] = await g.o.t.app.db
      .select()
      .from(inferenceLogs)
      .where(eq(inferenceLogs.requestId, requestId));
    expect(row?.status).toBe(400);
    // The log records the code the caller was answered: the replica's own.
    expect(row?.errorCode).toBe("unsupported_content");
    const metrics = await (await fetch(`${g.url}/metrics`)).text();
    expect(metrics).toMatch(/http_requests_total\{[^}]*route="\/v1\/chat\/completions",status="400"\} \d+/);
    expect(metrics).not.toMatch(/route="\/v1\/chat\/completions",status="502"/);
  });

  test("a replica's 500 is still 502 upstream_error", async () => {
    g.stub.behaviour = "fail";
    try {
      const response = await chat(g);
      expect(response.status).toBe(502);
      expect((await jsonBody<OpenAIError>(response)).error.code).toBe("upstream_error");
    } finally {
      g.stub.behaviour = "ok";
    }
  });
});

test("embeddings: a replica's 400 passes through with its param, after one upstream call", async () => {
  let calls = 0;
  const replica = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch() {
      calls++;
      return Response.json(
        {
          error: { message: "input is too long", type: "invalid_request_error", param: "input", code: null },
        },
        { status: 400 },
      );
    },
  });
  try {
    const name = `embed-${crypto.randomUUID().slice(0, 6)}`;
    await insertDeployment(g.o.t.app.db, g.o.orgId, {
      name,
      replicas: [{ state: "READY", endpoint: `http://127.0.0.1:${replica.port}/v1` }],
    });
    const client = new OpenAI({ baseURL: `${g.url}/v1`, apiKey: g.key });
    const error = await client.embeddings.create({ model: name, input: "hello" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    const apiError = error as InstanceType<typeof OpenAI.BadRequestError>;
    expect(apiError.message).toContain("input is too long");
    expect(apiError.param).toBe("input");
    expect(apiError.code).toBeNull();
    expect(calls).toBe(1);
  } finally {
    replica.stop(true);
  }
});
