// A local stand-in for a hosted OpenAI-compatible API, following OpenAI's published API (and, with
// `azure`, Azure OpenAI's): it refuses a request without an accepted key, as the real services do
// (401 with OpenAI's error body), and records the model and the key each request brought.
// - OpenAI style: `Authorization: Bearer <key>`, POST /v1/chat/completions | /v1/embeddings, GET /v1/models.
// - Azure style: `api-key: <key>`, POST /openai/deployments/<deployment>/chat/completions?api-version=V
//   (and /embeddings), GET /openai/models?api-version=V; another version is 404 as Azure answers it.
// `bun tests/fakes/hosted-openai/server.ts` runs one alone and prints `{"url","key","pid"}` (docs/providers.md,
// the README: its clean-up ends the process by that pid);
// `POST /_fake/up {"up": false}` makes it fail with 500 until set back, to show a fallback.
import type { Server } from "bun";

export interface HostedFakeOptions {
  /** The keys it accepts (a set a test may change: a revoked key). */
  keys: string[];
  azure?: { apiVersion: string } | undefined;
}

export interface Received {
  path: string;
  /** The model the request named: the body's `model`, or Azure's deployment in the path. */
  model: string;
  /** The key as it came: Bearer token or api-key header. */
  key: string | null;
  apiVersion: string | null;
  body: Record<string, unknown>;
}

export interface HostedFake {
  /** What to put in `configuration.endpoints` (the base URL). */
  url: string;
  keys: Set<string>;
  /** false: chat answers 500 (an upstream failing: the routing policy's trigger). */
  up: boolean;
  received: Received[];
  probes: number;
  stop(): void;
}

const encoder = new TextEncoder();
export const hostedAnswer = "Hello from the hosted fake.";
export const hostedUsage = {
  prompt_tokens: 10,
  completion_tokens: 5,
  total_tokens: 15,
  prompt_tokens_details: { cached_tokens: 4 },
};

const refused = () =>
  Response.json(
    {
      error: {
        message: "Incorrect API key provided.",
        type: "invalid_request_error",
        param: null,
        code: "invalid_api_key",
      },
    },
    { status: 401 },
  );

function chatAnswer(model: string, stream: boolean): Response {
  if (!stream) {
    return Response.json({
      id: "chatcmpl-hosted",
      object: "chat.completion",
      created: 1_700_000_000,
      model,
      choices: [{ index: 0, message: { role: "assistant", content: hostedAnswer }, finish_reason: "stop" }],
      usage: hostedUsage,
    });
  }
  const chunk = (delta: Record<string, unknown>, finish: string | null, usage?: unknown) =>
    `data: ${JSON.stringify({
      id: "chatcmpl-hosted",
      object: "chat.completion.chunk",
      created: 1_700_000_000,
      model,
      choices: usage ? [] : [{ index: 0, delta, finish_reason: finish }],
      ...(usage ? { usage } : {}),
    })}\n\n`;
  const words = hostedAnswer.split(/(?= )/);
  const events = [
    chunk({ role: "assistant", content: "" }, null),
    ...words.map((w) => chunk({ content: w }, null)),
    chunk({}, "stop"),
    chunk({}, null, hostedUsage),
    "data: [DONE]\n\n",
  ];
  return new Response(
    new ReadableStream({
      start(controller) {
        for (const e of events) controller.enqueue(encoder.encode(e));
        controller.close();
      },
    }),
    { headers: { "content-type": "text/event-stream" } },
  );
}

function embeddingsAnswer(model: string, input: unknown): Response {
  const inputs = Array.isArray(input) ? input : [input];
  return Response.json({
    object: "list",
    model,
    data: inputs.map((_, index) => ({ object: "embedding", index, embedding: [0.6, 0.8, 0] })),
    usage: { prompt_tokens: 3 * inputs.length, total_tokens: 3 * inputs.length },
  });
}

export function startHostedFake(options: HostedFakeOptions): HostedFake {
  const fake: Omit<HostedFake, "url" | "stop"> = {
    keys: new Set(options.keys),
    up: true,
    received: [],
    probes: 0,
  };
  const azure = options.azure;
  const server: Server<undefined> = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(request) {
      const url = new URL(request.url);
      if (request.method === "POST" && url.pathname === "/_fake/up") {
        fake.up = ((await request.json()) as { up?: unknown }).up !== false;
        return Response.json({ up: fake.up });
      }
      const key = azure
        ? request.headers.get("api-key")
        : (request.headers.get("authorization")?.replace(/^Bearer /, "") ?? null);
      const apiVersion = url.searchParams.get("api-version");
      if (!key || !fake.keys.has(key)) return refused();
      if (azure && apiVersion !== azure.apiVersion) {
        return Response.json({ error: { code: "404", message: "Resource not found" } }, { status: 404 });
      }
      const models = azure ? "/openai/models" : "/v1/models";
      if (request.method === "GET" && url.pathname === models) {
        fake.probes++;
        return Response.json({ object: "list", data: [{ id: "gpt-4.1-mini", object: "model" }] });
      }
      const match = azure
        ? /^\/openai\/deployments\/([^/]+)\/(chat\/completions|embeddings)$/.exec(url.pathname)
        : /^\/v1\/(chat\/completions|embeddings)$/.exec(url.pathname);
      if (request.method !== "POST" || !match) return new Response("not found", { status: 404 });
      const body = (await request.json()) as Record<string, unknown>;
      const operation = azure ? match[2] : match[1];
      const model = azure ? decodeURIComponent(match[1] as string) : String(body.model);
      fake.received.push({ path: url.pathname, model, key, apiVersion, body });
      if (!fake.up)
        return Response.json({ error: { message: "overloaded", type: "server_error" } }, { status: 500 });
      return operation === "embeddings"
        ? embeddingsAnswer(model, body.input)
        : chatAnswer(model, body.stream === true);
    },
  });
  return Object.assign(fake, {
    url: `http://127.0.0.1:${server.port}`,
    stop: () => void server.stop(true),
  });
}

if (import.meta.main) {
  const key = `sk-fake-${crypto.randomUUID().replaceAll("-", "")}`;
  const fake = startHostedFake({ keys: [key] });
  console.log(JSON.stringify({ url: fake.url, key, pid: process.pid }));
  for (const signal of ["SIGINT", "SIGTERM"] as const)
    process.on(signal, () => {
      fake.stop();
      process.exit(0);
    });
}
