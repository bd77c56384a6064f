// The chat-completions lifecycle of the specification, in its order: (1) key, (2) context, (3) rate
// limits, (4) quota, (5) input guardrails, (6) prompt processing, (7) upstream call, (8) output
// guardrails, (9) logging off the hot path. Each step is configured by the deployment's context and
// costs nothing when its policy is absent.

import { schemaSizeProblem } from "#adapters/engines/schema-limits.ts";
import { replicaError } from "#adapters/upstream/refusal.ts";
import { relaySse, type StreamChunk } from "#adapters/upstream/sse-relay.ts";
import type { ChatMessage, ChatCompletionRequest as ChatRequestBody, Usage } from "#contracts/openai/chat.ts";
import { AppError } from "#core/errors.ts";
import { startRequest } from "./admission.ts";
import type { AnswerMeta } from "./answer-meta.ts";
import { answerAttributes, requestAttributes, responseAttributes } from "./chat-attributes.ts";
import { classify } from "./classifier.ts";
import { mergeInputParts, type RequestGuard } from "./guard.ts";
import { estimatePromptTokens, estimateTokens, textOf } from "./messages.ts";
import type { GenAiOperation } from "./metrics.ts";
import type { InferenceContext, Resolution } from "./port.ts";
import { promptBlocks } from "./prefix-blocks.ts";
import type { CacheDirective, CacheLead } from "./response-cache/cache.ts";
import { type CachedAnswer, ChunkAssembler, replayJson, replayStream } from "./response-cache/replay.ts";
import { sendRouted } from "./routing.ts";
import type { InferenceRuntime } from "./runtime.ts";

export interface ChatInput {
  apiKey: string | undefined;
  /**
   * Steps (1) and (2) done by the caller: the dashboard's playground resolves the signed-in user's
   * context itself (services/inference-context/resolve.ts resolveUserContext) instead of a key's.
   */
  resolved?: Resolution | undefined;
  body: ChatRequestBody;
  requestId: string;
  /** Aborted when the client goes away. */
  signal: AbortSignal;
  /** Filled with what the answer says beside its body (a refusal's too): answer-meta.ts. */
  meta: AnswerMeta;
  /**
   * The request field a guardrail's refusal names: `messages` for chat; the translators around this
   * core (completions.ts, responses/) name their own (`prompt`, `input`).
   */
  inputParam?: string | undefined;
  /** The caller's request headers (an incoming `traceparent` continues the caller's trace). */
  incoming?: Headers | undefined;
  /** What metrics and traces call it: chat, unless a translator around this core says otherwise. */
  operation?: GenAiOperation | undefined;
  /** The caller's wishes for the response cache (the route reads them from Cache-Control). */
  cacheDirective?: CacheDirective | undefined;
}

/**
 * The answer in the chat-completions shape (a chat.completion object, or its SSE chunks ending with
 * `[DONE]` or an error event), and the context it was served in (who asked, which deployment).
 */
export type ChatResult = {
  context: InferenceContext;
  /** Where a cache policy applies: the answer came from the response cache (hit) or the model (miss). */
  cache?: "hit" | "miss" | undefined;
} & (
  | { kind: "json"; body: Record<string, unknown> }
  | { kind: "stream"; stream: ReadableStream<Uint8Array> }
);

export async function chatCompletion(runtime: InferenceRuntime, input: ChatInput): Promise<ChatResult> {
  const { body } = input;
  const request = startRequest(runtime, {
    requestId: input.requestId,
    model: body.model,
    operation: input.operation ?? "chat",
    stream: body.stream === true,
    answer: input.meta,
    incoming: input.incoming,
  });
  const { entry, finish } = request;
  if (request.observer.tracing) request.observer.annotate(requestAttributes(runtime, body));
  // The request computing an answer the response cache keeps (and identical requests wait for).
  let lead: CacheLead | undefined;

  try {
    checkSchemaSizes(body, input.inputParam);
    // (1) to (4): the key, the deployment, rate limits and quota; (5)'s scan of the input runs while
    // the rate limiter's answer travels (admission.ts `meanwhile`), its verdict applied below only to
    // a request admitted.
    const scan: { guard?: RequestGuard | undefined; checked?: ReturnType<RequestGuard["input"]> } = {};
    const context = await request.admit({
      apiKey: input.apiKey,
      resolved: input.resolved,
      promptTokens: estimatePromptTokens(body.messages),
      maxTokens: maxTokensOf(body),
      signal: input.signal,
      meanwhile: (admitted) => {
        const guard = admitted.guardrails ? runtime.guard(admitted.guardrails) : undefined;
        scan.guard = guard;
        if (guard) {
          // In the policy's parallel mode only the redacting scanner now; the rest beside the model's call.
          const part = guard.parallelInput ? "redacting" : "all";
          scan.checked = request.step("input guardrails", () => guard.input(body.messages, part));
          // Awaited below when the request is admitted; a refused request leaves it unread.
          scan.checked.catch(() => {});
        }
      },
    });
    let messages = body.messages;

    // (5) input guardrails.
    const { guard } = scan;
    const checked = await scan.checked;
    if (checked) {
      entry.guardrails.input = checked.decision;
      if (checked.blockedBy) throw inputBlocked(checked.blockedBy, input.inputParam);
      messages = checked.messages;
    }
    // The input policy's parallel mode: the scanners that do not redact run while the model is asked.
    let restOfInput =
      guard?.parallelInput && checked
        ? () =>
            request
              .step("input guardrails", () => nextTurn().then(() => guard.input(body.messages, "rest")))
              .then((rest) => {
                const all = mergeInputParts(checked, rest);
                entry.guardrails.input = all.decision;
                if (all.blockedBy) throw inputBlocked(all.blockedBy, input.inputParam);
              })
        : undefined;
    const classifier = context.guardrails?.input?.classifier;
    if (classifier && classifier.action !== "off") {
      const lastUser = messages.findLast((m) => m.role === "user");
      const verdict = await request.step("classifier", () =>
        classify(
          runtime,
          classifier,
          context.classifierEndpoints,
          lastUser ? textOf(lastUser) : "",
          input.signal,
        ),
      );
      entry.guardrails.classifier = verdict;
      if (verdict.action === "block") {
        throw new AppError("validation_error", "the request was blocked by the classifier guardrail", {
          openai_code: "content_policy_violation",
          param: input.inputParam ?? "messages",
        });
      }
    }

    // (6) prompt templates and retrieval.
    if (context.prompt || context.rag) {
      const before = messages;
      const processed = await request.step("prompt processing", () =>
        runtime.port.processPrompt(context, before),
      );
      if (processed.retrieval) entry.retrieval = processed.retrieval;
      if (processed.blockedBy) {
        throw inputBlocked(processed.blockedBy, input.inputParam);
      }
      messages = processed.messages;
    }

    const stream = body.stream === true;
    const includeUsage = body.stream_options?.include_usage === true;

    // The response cache: the guardrails have seen the input and the prompt is what the model would
    // see, so an answer kept for the same prompt serves; none is asked for before this point.
    const plan = runtime.responseCache.plan({
      orgId: context.orgId,
      deployment: context.deployment,
      policy: context.cache,
      body: { ...body, messages },
      outputPolicy: context.guardrails?.output,
      directive: input.cacheDirective,
      embeddingEndpoints: context.cacheEmbeddingEndpoints,
    });
    if (plan) {
      // A kept answer is served only to an input every scanner passed.
      if (restOfInput) await restOfInput();
      restOfInput = undefined;
      const found = await request.step("response cache", () =>
        runtime.responseCache.find(plan, input.signal),
      );
      if (found.hit) return answerFromCache(request, context, found.answer, body.model, stream, includeUsage);
      lead = found.lead;
      request.cache("miss");
    }
    const cacheResult = plan ? { cache: "miss" as const } : {};

    // (7) the model: the deployment's replicas, then its routing policy's fallbacks.
    const cancel = restOfInput ? new AbortController() : undefined;
    const sending = sendRouted(runtime, request, context, {
      // Replica endpoints are OpenAI base URLs (…/v1), as CONTRACTS writes external endpoints.
      path: "/chat/completions",
      body: (deploymentName) =>
        JSON.stringify({
          ...body,
          messages,
          model: deploymentName,
          ...(stream ? { stream_options: { ...body.stream_options, include_usage: true } } : {}),
        }),
      signal: cancel ? AbortSignal.any([input.signal, cancel.signal]) : input.signal,
      stream,
      firstByteTimeoutMs: stream ? runtime.timeouts.firstByteStreamMs : runtime.timeouts.firstByteMs,
      // The prompt as the engine will see it (after templates and retrieval): its replica is the one
      // that served its longest prefix, unless the routing policy turned prefix affinity off.
      prefixBlocks: context.prefixAffinity === false ? undefined : promptBlocks(messages, body.tools),
    });
    if (restOfInput && cancel) await passedBesideTheCall(restOfInput(), sending, cancel);
    const upstream = await sending;
    request.served(upstream.servedBy, upstream.endpoint, upstream.servedPrice);
    if (!upstream.response.ok) {
      // A replica's 4xx (before any streaming began) reaches the client as it is; see refusal.ts.
      const error = await replicaError(upstream.response);
      upstream.release();
      throw error;
    }

    // (8) and (9): the answer, checked and logged.
    if (stream) {
      const output = guard?.output(true);
      const assembler = lead ? new ChunkAssembler() : undefined;
      const streamLead = lead;
      const relayed = relaySse(upstream.response.body as ReadableStream<Uint8Array>, {
        includeUsage,
        mapChunk: (chunk: StreamChunk) => {
          chunk.model = body.model;
          const delta = chunk.choices?.[0]?.delta;
          if (delta?.content || delta?.tool_calls) request.firstToken();
          const sent = output?.chunk ? output.chunk(chunk) : chunk;
          if (sent) assembler?.add(sent);
          return sent;
        },
        onEnd: (outcome) => {
          upstream.release();
          // Kept only when the client got the whole answer, as it got it.
          const whole =
            !outcome.error && !outcome.cancelled && !output?.blockedBy()
              ? assembler?.answer(body.model, outcome.usage)
              : undefined;
          if (whole) streamLead?.complete(whole);
          else streamLead?.abandon();
          const prompt = estimatePromptTokens(messages);
          const usage = outcome.usage ?? {
            prompt_tokens: prompt,
            completion_tokens: estimateTokens(outcome.content),
            total_tokens: prompt + estimateTokens(outcome.content),
          };
          if (request.observer.tracing) request.observer.annotate(responseAttributes(runtime, outcome));
          const done = () => {
            const blockedBy = output?.blockedBy();
            finish(
              usage,
              blockedBy
                ? blocked(blockedBy)
                : outcome.error
                  ? new AppError("upstream_error", outcome.error)
                  : undefined,
            );
          };
          if (!output) return done();
          // The async mode's scan of a long answer runs off the loop; the request is logged after it.
          request
            .step("output guardrails", () => output.finish(outcome.content))
            .then(
              (decision) => {
                entry.guardrails.output = decision;
              },
              () => {},
            )
            .finally(done);
        },
      });
      return { kind: "stream", stream: relayed, context, ...cacheResult };
    }
    let answer: Record<string, unknown>;
    try {
      answer = (await upstream.response.json()) as Record<string, unknown>;
    } catch {
      throw new AppError("upstream_error", "the model's server sent an answer that is not JSON");
    } finally {
      upstream.release();
    }
    request.firstToken();
    answer.model = body.model;
    const usage = (answer.usage as Usage | undefined) ?? countUsage(messages, answer);
    answer.usage = usage;
    if (request.observer.tracing) request.observer.annotate(answerAttributes(runtime, answer));
    if (guard) {
      const checked = await request.step("output guardrails", () => guard.outputText(answer));
      entry.guardrails.output = checked.decision;
      if (checked.blockedBy) throw blocked(checked.blockedBy);
    }
    lead?.complete(answer);
    finish(usage);
    return { kind: "json", body: answer, context, ...cacheResult };
  } catch (error) {
    lead?.abandon();
    const appError = error instanceof AppError ? error : new AppError("internal", "internal error");
    finish(undefined, appError);
    throw error;
  }
}

/**
 * A kept answer, in the framing the caller asked for. No replica was asked: the log says `cache: hit`
 * with the answer's tokens as saved and costs nothing; the output guardrails checked it when it was
 * computed, under the same output policy (part of its key).
 */
function answerFromCache(
  request: ReturnType<typeof startRequest>,
  context: InferenceContext,
  answer: CachedAnswer,
  model: string,
  stream: boolean,
  includeUsage: boolean,
): ChatResult {
  request.firstToken();
  request.cache("hit", answer.usage);
  request.finish(answer.usage ?? { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 });
  return stream
    ? { kind: "stream", stream: replayStream(answer, model, includeUsage), context, cache: "hit" }
    : { kind: "json", body: replayJson(answer, model), context, cache: "hit" };
}

/** A request refused by an input guardrail (its messages, or a retrieved passage): the scanner named, never the text. */
const inputBlocked = (scanner: string, param: string | undefined) =>
  new AppError("validation_error", `the request was blocked by the ${scanner} guardrail`, {
    openai_code: "content_policy_violation",
    param: param ?? "messages",
  });

/** The next turn of the event loop: a call started before it is on its way to the replica. */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Waits for the input scanners that run beside the model's call; when they refuse (or fail), the call
 * is cancelled and its answer, if it came, dropped unread, and the refusal is thrown.
 */
async function passedBesideTheCall(
  verdict: Promise<void>,
  sending: Promise<{ response: Response; release(): void }>,
  cancel: AbortController,
): Promise<void> {
  // Read after the verdict; a failure before then is not an unhandled rejection.
  sending.catch(() => {});
  try {
    await verdict;
  } catch (error) {
    cancel.abort();
    sending.then(
      (upstream) => {
        upstream.response.body?.cancel().catch(() => {});
        upstream.release();
      },
      () => {},
    );
    throw error;
  }
}

const blocked = (scanner: string) =>
  new AppError("validation_error", `the answer was blocked by the ${scanner} guardrail`, {
    openai_code: "content_policy_violation",
  });

function countUsage(messages: ChatMessage[], answer: Record<string, unknown>): Usage {
  const choices = (answer.choices as { message?: { content?: string } }[] | undefined) ?? [];
  const completion = estimateTokens(choices.map((c) => c.message?.content ?? "").join(""));
  const prompt = estimatePromptTokens(messages);
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
}

/** The completion's bound the call sets, if any (max_completion_tokens wins, as OpenAI's). */
function maxTokensOf(body: ChatInput["body"]): number | undefined {
  const bound = body.max_completion_tokens ?? body.max_tokens;
  return typeof bound === "number" ? bound : undefined;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null;

/**
 * The JSON Schemas of a request that an engine turns into grammars (response_format's, each tool's
 * parameters), by their parameter names.
 */
function grammarSchemas(body: ChatRequestBody): [string, unknown][] {
  const found: [string, unknown][] = [];
  const format = body.response_format;
  if (isRecord(format) && format.type === "json_schema" && isRecord(format.json_schema))
    found.push(["response_format.json_schema.schema", format.json_schema.schema]);
  if (Array.isArray(body.tools))
    body.tools.forEach((tool: unknown, i) => {
      if (isRecord(tool) && isRecord(tool.function))
        found.push([`tools.${i}.function.parameters`, tool.function.parameters]);
    });
  return found;
}

/** OpenAI's structured-outputs size limits (adapters/engines/schema-limits.ts): 400 naming the schema. */
function checkSchemaSizes(body: ChatRequestBody, inputParam: string | undefined): void {
  for (const [param, schema] of grammarSchemas(body)) {
    const problem = schema === undefined ? undefined : schemaSizeProblem(schema);
    if (problem)
      throw new AppError("validation_error", `${param}: the schema ${problem}`, {
        param: inputParam === "input" && param.startsWith("response_format") ? "text.format.schema" : param,
        fields: [{ field: param, message: `the schema ${problem}` }],
      });
  }
}
