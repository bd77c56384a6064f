// Shared set-up of the inference gateway tests: a test platform with its inference gateway listening
// on a real port (the openai SDK and raw fetch both talk to it), a deployment whose ready replica is
// an OpenAI stub the test steers, an API key, and helpers to attach policies.

import { RedisClient } from "bun";
import { and, eq } from "drizzle-orm";
import OpenAI from "openai";
import type { RedisCommands } from "#adapters/redis/client.ts";
import type { PolicyType } from "#core/domain.ts";
import { auditLogs, inferenceLogs } from "#db/schema/index.ts";
import type { POST as createKeyRoute } from "#routes/filtration/management/api-keys/index.ts";
import { buildHttpGateway } from "#routes/gateways.ts";
import { type OpenAiStub, startOpenAiStub } from "#scripts/openai-stub.ts";
import { withInference } from "#server/compose.ts";
import { httpStatusOf } from "#server/error-table.ts";
import { httpFiltration } from "#server/filtration-http-port.ts";
import { listen } from "#server/http/listen.ts";
import type { HttpMetrics } from "#server/http/metrics.ts";
import type { Listener } from "#server/start/platform.ts";
import type { FiltrationPort } from "#services/inference/port.ts";
import {
  createInferenceRuntime,
  type InferenceRuntime,
  type InferenceTracing,
  type RuntimeOptions,
} from "#services/inference/runtime.ts";
import { inProcessFiltration } from "#services/inference-context/in-process-port.ts";
import { insertDeployment } from "../management/support.ts";
import { eventually, type OrchestrationTest, startOrchestrationTest } from "../orchestration/support.ts";
import { call } from "../support/app.ts";
import { type TestClock, testClock } from "../support/clock.ts";

/** The official openai SDK pointed at the gateway with the test's key, without retries. */
export const openAiClient = (g: GatewayTest) =>
  new OpenAI({ apiKey: g.key, baseURL: `${g.url}/v1`, maxRetries: 0 });

export interface GatewayTest {
  o: OrchestrationTest;
  runtime: InferenceRuntime;
  inference: Listener;
  /** The inference gateway's HTTP metrics: `observedAtLeast(n)` resolves once n answers are counted. */
  httpMetrics: HttpMetrics;
  /** http://127.0.0.1:port of the inference gateway. */
  url: string;
  stub: OpenAiStub;
  /** A deployment served by the stub. */
  model: string;
  deploymentId: string;
  key: string;
  redis: RedisClient | undefined;
  /** The runtime's clock: `g.clock.advance(1100)` ages the cached contexts past their second. */
  clock: TestClock;
  close(): Promise<void>;
}

export const redisUrl = process.env.REDIS_URL || undefined;

/**
 * A `port` for startGatewayTest: the filtration gateway listening apart on a free port and reached over
 * HTTP, as a gateway running on its own reaches it; `listening` is given its listener (to stop it).
 */
export const filtrationOverHttp =
  (listening: (filtration: Listener) => void, options: { timeoutMs?: number } = {}) =>
  async (o: OrchestrationTest): Promise<FiltrationPort> => {
    const filtration = listen(o.t.app, "filtration", 0, await buildHttpGateway(o.t.app, "filtration"));
    listening(filtration);
    return httpFiltration({
      baseUrl: `http://127.0.0.1:${filtration.port}`,
      internalApiKey: o.t.config.internalApiKey,
      ...options,
    });
  };

export async function startGatewayTest(
  options: {
    redis?: boolean;
    /** A Redis the test controls (its own redis-server), instead of REDIS_URL's. */
    store?: RedisCommands;
    port?: (o: OrchestrationTest) => FiltrationPort | Promise<FiltrationPort>;
    tracing?: InferenceTracing;
    replicaHealth?: RuntimeOptions["replicaHealth"];
    /** The response cache's clock and store (default: Redis with `redis`, else memory). */
    now?: RuntimeOptions["now"];
    cacheStore?: (o: OrchestrationTest) => NonNullable<RuntimeOptions["responseCacheStore"]>;
  } = {},
): Promise<GatewayTest> {
  // Every gateway of the test platform traces when the test traces (the context is built with it).
  const o = await startOrchestrationTest({}, { tracer: options.tracing?.tracer });
  const redis = options.redis && redisUrl ? new RedisClient(redisUrl) : undefined;
  const clock = testClock(options.now);
  const runtime = createInferenceRuntime({
    port: options.port ? await options.port(o) : inProcessFiltration(o.t.app, { now: clock.now }),
    redis: options.store ?? redis,
    log: o.t.app.log,
    statusOf: httpStatusOf,
    tracing: options.tracing,
    replicaHealth: options.replicaHealth,
    now: clock.now,
    responseCacheStore: options.cacheStore?.(o),
  });
  o.t.app = withInference(o.t.app, runtime);
  const gateway = await buildHttpGateway(o.t.app, "inference");
  const inference = listen(o.t.app, "inference", 0, gateway);
  const stub = startOpenAiStub();
  const model = `stub-${crypto.randomUUID().slice(0, 8)}`;
  const { id } = await insertDeployment(o.t.app.db, o.orgId, {
    name: model,
    replicas: [{ state: "READY", endpoint: stub.baseUrl }],
  });
  const key = await createKey(o);
  return {
    o,
    runtime,
    inference,
    httpMetrics: gateway.runtime.metrics,
    url: `http://127.0.0.1:${inference.port}`,
    stub,
    model,
    deploymentId: id,
    key,
    redis,
    clock,
    async close() {
      await runtime.close();
      await inference.stop(1000);
      stub.stop();
      redis?.close();
      await o.t.close();
    },
  };
}

export async function createKey(o: OrchestrationTest, body: Record<string, unknown> = {}): Promise<string> {
  const res = await call<typeof createKeyRoute>(o.filtration, "POST", "/management/api-keys", {
    token: o.token,
    body: { name: `k-${crypto.randomUUID().slice(0, 6)}`, ...body },
  });
  if (res.status !== 201) throw new Error(`api key: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.key;
}

/** Sets a policy on the deployment (CONTRACTS' /management/config/{policy_type}). */
export async function setPolicy(
  g: GatewayTest,
  type: PolicyType,
  config: Record<string, unknown>,
  deploymentId = g.deploymentId,
): Promise<void> {
  const res = await call(g.o.filtration, "POST", `/management/config/${type}`, {
    token: g.o.token,
    body: { deployment_id: deploymentId, config },
  });
  if (res.status !== 200) throw new Error(`policy ${type}: ${res.status} ${JSON.stringify(res.body)}`);
}

/** POST /v1/chat/completions with raw fetch, so status and headers can be read. */
export function chat(
  g: Pick<GatewayTest, "url" | "key" | "model">,
  body: Record<string, unknown> = {},
  key: string | null = g.key,
): Promise<Response> {
  return fetch(`${g.url}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(key ? { authorization: `Bearer ${key}` } : {}) },
    body: JSON.stringify({ model: g.model, messages: [{ role: "user", content: "Hi there" }], ...body }),
  });
}

/** Reads an SSE body into its data payloads. */
export async function sseEvents(response: Response): Promise<string[]> {
  const text = await response.text();
  return text
    .split("\n\n")
    .map((e) => e.trim())
    .filter((e) => e.startsWith("data: "))
    .map((e) => e.slice("data: ".length));
}

/** The guardrails.finding audit record of one request, once the log batcher has written it. */
export async function findingAudited(g: GatewayTest, requestId: string) {
  const [audit] = await eventually(async () => {
    const rows = await g.o.t.app.db
      .select()
      .from(auditLogs)
      .where(and(eq(auditLogs.action, "guardrails.finding"), eq(auditLogs.requestId, requestId)));
    return rows.length ? rows : undefined;
  }, 10_000);
  return audit;
}

/** The inference log row of one request, once the log batcher has written it. */
export async function loggedRequest(g: Pick<GatewayTest, "o">, requestId: string) {
  const [row] = await eventually(async () => {
    const rows = await g.o.t.app.db
      .select()
      .from(inferenceLogs)
      .where(eq(inferenceLogs.requestId, requestId));
    return rows.length ? rows : undefined;
  }, 10_000);
  return row;
}
