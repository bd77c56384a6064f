// Each step of the inference lifecycle (services/inference/admission.ts and chat.ts) on its own, against
// a runtime whose filtration side is a fake: key, context, limits, quota and budget, the wait for a
// replica, input guardrails, the classifier, the prompt, route and send, the answer, and the log.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { SpanKind } from "@opentelemetry/api";
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from "@opentelemetry/sdk-trace";
import type { ChatMessage } from "#contracts/openai/chat.ts";
import { AppError } from "#core/errors.ts";
import type { Logger } from "#core/logger.ts";
import { httpStatusOf } from "#server/error-table.ts";
import {
  type AdmitInput,
  checkRateLimits,
  type InferenceRequest,
  logRequest,
  requireKey,
  reserveQuotaAndBudgets,
  resolveContext,
  startRequest,
  waitForReplica,
} from "#services/inference/admission.ts";
import type { AnswerMeta } from "#services/inference/answer-meta.ts";
import {
  answerJson,
  applyInputScan,
  type ChatCall,
  type ChatInput,
  checkClassifier,
  processPrompt,
  sendChat,
} from "#services/inference/chat.ts";
import type {
  InferenceContext,
  InferenceLogEntry,
  Resolution,
  UsageRecord,
} from "#services/inference/port.ts";
import { createInferenceRuntime, type InferenceRuntime } from "#services/inference/runtime.ts";

const quiet: Logger = { debug() {}, info() {}, warn() {}, error() {}, child: () => quiet };

function contextOf(extra: Partial<InferenceContext> = {}): InferenceContext {
  return {
    orgId: "org-1",
    apiKeyId: "key-1",
    keyPrefix: "sk-abc",
    deployment: { id: "dep-1", name: "tiny" },
    endpoints: ["http://127.0.0.1:1/v1"],
    rateLimit: undefined,
    quota: undefined,
    guardrails: undefined,
    rag: undefined,
    prompt: undefined,
    ...extra,
  };
}

interface FakeState {
  logs: InferenceLogEntry[];
  usage: UsageRecord[];
  resolution: Resolution;
  processed: { messages: ChatMessage[]; blockedBy?: string; retrieval?: Record<string, number> };
  usedRequests: number;
}
type Fake = FakeState & { runtime: InferenceRuntime };

function fakeRuntime(): Fake {
  const fake: FakeState = {
    logs: [],
    usage: [],
    resolution: { ok: true, context: contextOf() },
    processed: { messages: [] },
    usedRequests: 0,
  };
  const runtime = createInferenceRuntime({
    port: {
      responses: {
        save: async () => {},
        find: async () => ({ ok: false, reason: "not_found" }),
        delete: async () => ({ ok: false, reason: "not_found" }),
      },
      resolve: async () => fake.resolution,
      models: async () => [],
      checkQuota: async () => ({ allowed: true, usedRequests: fake.usedRequests }),
      checkBudget: async () => ({ allowed: true }),
      trackUsage: async () => {},
      processPrompt: async () => fake.processed,
      writeLogs: async () => {},
    },
    redis: undefined,
    log: quiet,
    statusOf: httpStatusOf,
  });
  runtime.logs.add = (entry) => void fake.logs.push(entry);
  runtime.usage.add = (record) => void fake.usage.push(record);
  return Object.assign(fake, { runtime });
}

const started: Fake[] = [];
function setUp(): { fake: Fake; request: InferenceRequest; meta: AnswerMeta } {
  const fake = fakeRuntime();
  started.push(fake);
  const meta: AnswerMeta = {};
  const request = startRequest(fake.runtime, {
    requestId: "req-1",
    model: "tiny",
    operation: "chat",
    stream: false,
    answer: meta,
  });
  return { fake, request, meta };
}
afterAll(async () => {
  for (const fake of started) await fake.runtime.close();
});

const admitInput: AdmitInput = { apiKey: "sk-abc-key", promptTokens: 10, maxTokens: 5 };
const everything = { run() {} };

async function refusal(work: Promise<unknown> | (() => unknown)): Promise<AppError> {
  try {
    await (typeof work === "function" ? work() : work);
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error("the step did not refuse");
}

describe("admission steps", () => {
  test("key: a request without one is refused with invalid_api_key", async () => {
    expect(requireKey("sk-1")).toBe("sk-1");
    expect((await refusal(() => requireKey(undefined))).details?.openai_code).toBe("invalid_api_key");
  });

  test("context: the key's deployment, recorded on the log entry; a refusal names the caller", async () => {
    const { fake, request } = setUp();
    const context = await resolveContext(request, admitInput);
    expect(context.deployment.name).toBe("tiny");
    expect(request.context).toBe(context);
    expect(request.entry).toMatchObject({ org_id: "org-1", deployment_id: "dep-1", key_prefix: "sk-abc" });
    fake.resolution = {
      ok: false,
      reason: "model_not_found",
      caller: { orgId: "org-2", apiKeyId: "key-2", keyPrefix: "sk-xyz" },
    };
    const other = setUp();
    other.fake.resolution = fake.resolution;
    const error = await refusal(resolveContext(other.request, admitInput));
    expect(error.details?.openai_code).toBe("model_not_found");
    expect(other.request.entry.org_id).toBe("org-2");
  });

  test("limits: counted and reported in the answer's metadata; past the limit, refused with retry-after", async () => {
    const context = contextOf({ rateLimit: { requests_per_minute: 1 } });
    const first = setUp();
    await checkRateLimits(first.request, context, admitInput, everything);
    expect(first.meta.rateLimit?.requests).toEqual({ limit: 1, remaining: 0 });
    expect(first.request.charged).toBe(15);
    // The same runtime's limiter: the second request of the minute is refused.
    const second = startRequest(first.fake.runtime, {
      requestId: "req-2",
      model: "tiny",
      operation: "chat",
      stream: false,
      answer: {},
    });
    const error = await refusal(checkRateLimits(second, context, admitInput, everything));
    expect(error.details?.openai_code).toBe("rate_limit_exceeded");
    expect(second.answer.retryAfterS).toBeGreaterThanOrEqual(1);
    expect(second.charged).toBe(0);
  });

  test("limits: without a policy nothing is counted", async () => {
    const { request, meta } = setUp();
    await checkRateLimits(request, contextOf(), admitInput, everything);
    expect(request.limits).toBeUndefined();
    expect(meta.rateLimit).toBeUndefined();
  });

  test("quota and budget: reserved when the day's standing leaves room, refused when it does not", async () => {
    const context = contextOf({ quota: { requests_per_day: 2 } });
    const { request } = setUp();
    await reserveQuotaAndBudgets(request, context, admitInput);
    expect(request.held).toBeDefined();
    const late = setUp();
    late.fake.usedRequests = 2;
    const error = await refusal(reserveQuotaAndBudgets(late.request, context, admitInput));
    expect(error.details?.openai_code).toBe("insufficient_quota");
  });

  test("wait for a replica: a context with one is not held; one scaled to zero waits for its replica", async () => {
    const { fake, request } = setUp();
    const ready = contextOf();
    expect(await waitForReplica(request, ready, admitInput)).toBe(ready);
    const cold = contextOf({ endpoints: [], coldStart: { cold_start_timeout_s: 5, max_queued: 10 } });
    fake.resolution = { ok: true, context: contextOf({ endpoints: ["http://127.0.0.1:2/v1"] }) };
    const woken = await waitForReplica(request, cold, admitInput);
    expect(woken.endpoints).toEqual(["http://127.0.0.1:2/v1"]);
  });

  test("log: the entry, its usage and cost written once; an error's status and code on it", async () => {
    const { fake, request } = setUp();
    await resolveContext(request, admitInput);
    logRequest(request, { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 });
    expect(fake.logs).toHaveLength(1);
    expect(fake.logs[0]).toMatchObject({
      prompt_tokens: 3,
      completion_tokens: 4,
      total_tokens: 7,
      status: 200,
    });
    expect(fake.usage).toEqual([
      {
        orgId: "org-1",
        deploymentId: "dep-1",
        apiKeyId: "key-1",
        promptTokens: 3,
        completionTokens: 4,
        cost: 0,
      },
    ]);
    const failed = setUp();
    logRequest(failed.request, undefined, new AppError("rate_limited", "no"));
    expect(failed.fake.logs[0]).toMatchObject({ status: 429, error_code: "rate_limited" });
    expect(failed.fake.usage).toEqual([]);
  });
});

describe("chat steps", () => {
  let replica: ReturnType<typeof Bun.serve>;
  let lastBody: { model?: string; messages?: ChatMessage[] } = {};
  beforeAll(() => {
    replica = Bun.serve({
      port: 0,
      async fetch(req) {
        lastBody = await req.json();
        return Response.json({
          id: "c1",
          object: "chat.completion",
          choices: [{ message: { content: "two words" } }],
        });
      },
    });
  });
  afterAll(() => replica.stop(true));

  const messages: ChatMessage[] = [{ role: "user", content: "Hello there" }];
  function chatOf(): { fake: Fake; chat: ChatCall } {
    const { fake, request, meta } = setUp();
    const input: ChatInput = {
      apiKey: "sk-abc-key",
      body: { model: "tiny", messages },
      requestId: "req-1",
      signal: new AbortController().signal,
      meta,
    };
    return { fake, chat: { runtime: fake.runtime, request, input, scan: {}, lead: undefined } };
  }

  test("input guardrails: the scan's decision logged, its messages passed on; a block names the scanner", async () => {
    const { chat } = chatOf();
    const redacted: ChatMessage[] = [{ role: "user", content: "[redacted]" }];
    const passed = await applyInputScan(
      chat,
      Promise.resolve({ messages: redacted, decision: { action: "redact", findings: [] } }),
    );
    expect(passed.messages).toBe(redacted);
    expect(chat.request.entry.guardrails.input).toEqual({ action: "redact", findings: [] });
    const error = await refusal(
      applyInputScan(
        chat,
        Promise.resolve({ messages, blockedBy: "regex", decision: { action: "block", findings: [] } }),
      ),
    );
    expect(error.message).toContain("regex");
    expect(error.details?.param).toBe("messages");
  });

  test("classifier: a guard model that cannot answer blocks under on_error: block, and is logged", async () => {
    const { chat } = chatOf();
    const config = { deployment: "guard", action: "block" as const, on_error: "block" as const };
    const error = await refusal(checkClassifier(chat, contextOf(), config, messages));
    expect(error.details?.openai_code).toBe("content_policy_violation");
    expect(chat.request.entry.guardrails.classifier).toMatchObject({ action: "block" });
  });

  test("prompt: the template's messages and retrieval recorded; a retrieved passage may be refused", async () => {
    const { fake, chat } = chatOf();
    const templated: ChatMessage[] = [{ role: "system", content: "Be brief." }, ...messages];
    fake.processed = { messages: templated, retrieval: { chunks: 2 } };
    expect(await processPrompt(chat, contextOf(), messages)).toBe(templated);
    expect(chat.request.entry.retrieval).toEqual({ chunks: 2 });
    fake.processed = { messages, blockedBy: "indirect_injection" };
    expect((await refusal(processPrompt(chat, contextOf(), messages))).message).toContain(
      "indirect_injection",
    );
  });

  test("route and send, then the answer: the replica asked by the deployment's name; usage counted, logged", async () => {
    const { fake, chat } = chatOf();
    const context = contextOf({ endpoints: [`http://127.0.0.1:${replica.port}/v1`] });
    chat.request.context = context;
    const upstream = await sendChat(chat, context, messages, undefined);
    expect(lastBody.model).toBe("tiny");
    expect(chat.request.entry.served_by).toBe("tiny");
    const answered = await answerJson(chat, upstream, messages);
    expect(answered.body.model).toBe("tiny");
    expect(answered.body.usage?.completion_tokens).toBeGreaterThan(0);
    expect(fake.logs).toHaveLength(1);
    expect(fake.logs[0]?.completion_tokens).toBe(answered.body.usage?.completion_tokens);
  });

  test("the classifier's call is traced and measured as a request's own: a CLIENT span under the request's, the upstream series", async () => {
    const guard = Bun.serve({
      port: 0,
      fetch: () => Response.json({ choices: [{ message: { content: "safe" } }] }),
    });
    const exporter = new InMemorySpanExporter();
    const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
    try {
      const { fake, chat } = chatOf();
      fake.runtime.tracing = { tracer: provider.getTracer("test"), captureContent: false };
      const request = startRequest(fake.runtime, {
        requestId: "req-c",
        model: "tiny",
        operation: "chat",
        stream: false,
        answer: {},
      });
      const traced: ChatCall = { ...chat, request };
      const config = { deployment: "guard", action: "block" as const, format: "label" as const };
      await checkClassifier(
        traced,
        contextOf({ classifierEndpoints: [`http://127.0.0.1:${guard.port}/v1`] }),
        config,
        messages,
      );
      expect(request.entry.guardrails.classifier).toEqual({ action: "allow", score: 0 });
      const exposition = await fake.runtime.metrics.registry.metrics();
      expect(exposition).toMatch(
        /^llm_upstream_duration_seconds_count\{deployment="guard",[^}]*outcome="ok"\} 1$/m,
      );
      const spans = exporter.getFinishedSpans();
      const client = spans.find((span) => span.name === "chat guard");
      expect(client?.kind).toBe(SpanKind.CLIENT);
      request.finish(undefined);
      const server = exporter.getFinishedSpans().find((span) => span.name === "chat tiny");
      expect(client?.parentSpanContext?.spanId).toBe(server?.spanContext().spanId);
    } finally {
      guard.stop(true);
      await provider.shutdown();
    }
  });
});
