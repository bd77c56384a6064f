// The chat-completions lifecycle of the specification, in its order: (1) key, (2) context, (3) rate
// limits, (4) quota, (5) input guardrails, (6) prompt processing, (7) upstream call, (8) output
// guardrails, (9) logging off the hot path. Each step is configured by the deployment's context and
// costs nothing when its policy is absent.

import { schemaSizeProblem } from "#adapters/engines/schema-limits.ts";
import { replicaError } from "#adapters/upstream/refusal.ts";
import { type RelayOutcome, relaySse } from "#adapters/upstream/sse-relay.ts";
import type { InferenceAnswer } from "#contracts/internal/inference-answer.ts";
import type {
  ChatMessage,
  ChatCompletionRequest as ChatRequestBody,
  ReceivedChunk,
  Usage,
} from "#contracts/openai/chat.ts";
import { AppError } from "#core/errors.ts";
import { isObjectLike } from "#core/json.ts";
import type { ClassifierConfig } from "#core/policies.ts";
import { textOf } from "../guardrails/message-text.ts";
import { type InferenceRequest, startRequest } from "./admission.ts";
import type { AnswerMeta } from "./answer-meta.ts";
import { answerAttributes, requestAttributes, responseAttributes } from "./chat-attributes.ts";
import { classifierCallee, classify } from "./classifier.ts";
import { type InputChecked, mergeInputParts, type OutputGuard, type RequestGuard } from "./guard.ts";
import { estimatePromptTokens, estimateTokens } from "./messages.ts";
import type { GenAiOperation } from "./metrics.ts";
import type { InferenceContext, Resolution } from "./port.ts";
import { promptBlocks } from "./prefix-blocks.ts";
import type { CacheDirective, CacheLead, CacheRequest } from "./response-cache/cache.ts";
import { type CachedAnswer, ChunkAssembler, replayJson, replayStream } from "./response-cache/replay.ts";
import { type RoutedResponse, sendRouted } from "./routing.ts";
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
} & InferenceAnswer<Record<string, unknown>>;

/**
 * A replica's chat.completion as the lifecycle reads it: the fields it names or counts; the rest
 * passes through to the client untouched.
 */
export interface ChatAnswer {
  [field: string]: unknown;
  model?: string;
  usage?: Usage | undefined;
  choices?: {
    message?: { content?: string | null; tool_calls?: unknown };
    logprobs?: unknown;
    finish_reason?: string | null;
  }[];
}

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
  if (request.observer.tracing) request.observer.annotate(requestAttributes(runtime, body));
  const chat: ChatCall = { runtime, request, input, scan: {}, lead: undefined };
  try {
    checkSchemaSizes(body, input.inputParam);
    // (1) to (4): the key, the deployment, rate limits, quota and budgets; (5)'s scan of the input
    // runs while the rate limiter's answer travels (admission.ts `meanwhile`), its verdict applied
    // below only to a request admitted.
    const context = await request.admit({
      apiKey: input.apiKey,
      resolved: input.resolved,
      promptTokens: estimatePromptTokens(body.messages),
      maxTokens: maxTokensOf(body),
      signal: input.signal,
      meanwhile: (admitted) => startInputScan(chat, admitted),
    });
    // (5) input guardrails, then the guard model's classifier.
    const checked = chat.scan.checked ? await applyInputScan(chat, chat.scan.checked) : undefined;
    let messages = checked?.messages ?? body.messages;
    let restOfInput = checked?.rest;
    const classifier = context.guardrails?.input?.classifier;
    if (classifier && classifier.action !== "off") await checkClassifier(chat, context, classifier, messages);
    // (6) prompt templates and retrieval.
    if (context.prompt || context.rag) messages = await processPrompt(chat, context, messages);
    // The response cache: the guardrails have seen the input and the prompt is what the model would
    // see, so an answer kept for the same prompt serves; none is asked for before this point.
    const plan = runtime.responseCache.plan(cacheRequest(input, context, messages));
    if (plan) {
      // A kept answer is served only to an input every scanner passed.
      if (restOfInput) await restOfInput();
      restOfInput = undefined;
      const found = await request.step("response cache", () =>
        runtime.responseCache.find(plan, input.signal),
      );
      if (found.hit) return answerFromCache(request, context, found.answer, body);
      chat.lead = found.lead;
      request.cache("miss");
    }
    // (7) the model: the deployment's replicas, then its routing policy's fallbacks.
    const upstream = await sendChat(chat, context, messages, restOfInput);
    // (8) and (9): the answer, checked and logged.
    const answered =
      body.stream === true
        ? relayChatStream(chat, upstream, messages)
        : await answerJson(chat, upstream, messages);
    return { ...answered, context, ...(plan ? { cache: "miss" as const } : {}) };
  } catch (error) {
    chat.lead?.abandon();
    request.finish(undefined, error instanceof AppError ? error : new AppError("internal", "internal error"));
    throw error;
  }
}

/** One chat call's way through the steps below. */
export interface ChatCall {
  runtime: InferenceRuntime;
  request: InferenceRequest;
  input: ChatInput;
  /** (5)'s scan, started during admission. */
  scan: { guard?: RequestGuard | undefined; checked?: Promise<InputChecked> | undefined };
  /** The request computing an answer the response cache keeps (and identical requests wait for). */
  lead: CacheLead | undefined;
}

/**
 * Step (5) begun: the input scan of an admitted deployment's guardrails, run during admission. In the
 * policy's parallel mode only the redacting scanner now; the rest beside the model's call.
 */
export function startInputScan(chat: ChatCall, context: InferenceContext): void {
  const guard = context.guardrails ? chat.runtime.guard(context.guardrails) : undefined;
  chat.scan.guard = guard;
  if (!guard) return;
  const part = guard.parallelInput ? "redacting" : "all";
  const messages = chat.input.body.messages;
  const checked = chat.request.step("input guardrails", () => guard.input(messages, part));
  chat.scan.checked = checked;
  // Awaited when the request is admitted; a refused request leaves it unread.
  checked.catch(() => {});
}

/**
 * Step (5): the input scan's verdict, logged; a refusal names the scanner. In the policy's parallel
 * mode, `rest` runs the scanners that do not redact while the model is asked.
 */
export async function applyInputScan(
  chat: ChatCall,
  scanning: Promise<InputChecked>,
): Promise<{ messages: ChatMessage[]; rest: (() => Promise<void>) | undefined }> {
  const { request, input } = chat;
  const { entry } = request;
  const checked = await scanning;
  entry.guardrails.input = checked.decision;
  if (checked.blockedBy) throw inputBlocked(checked.blockedBy, input.inputParam);
  const guard = chat.scan.guard;
  if (!guard?.parallelInput) return { messages: checked.messages, rest: undefined };
  const rest = () =>
    request
      .step("input guardrails", () => nextTurn().then(() => guard.input(input.body.messages, "rest")))
      .then((more) => {
        const all = mergeInputParts(checked, more);
        entry.guardrails.input = all.decision;
        if (all.blockedBy) throw inputBlocked(all.blockedBy, input.inputParam);
      });
  return { messages: checked.messages, rest };
}

/** Step (5), the guard model: the last user message classified; a `block` verdict refuses the request. */
export async function checkClassifier(
  chat: ChatCall,
  context: InferenceContext,
  classifier: ClassifierConfig,
  messages: ChatMessage[],
): Promise<void> {
  const { request, input } = chat;
  const lastUser = messages.findLast((m) => m.role === "user");
  const verdict = await request.step("classifier", () =>
    classify(
      chat.runtime,
      classifier,
      context.classifierEndpoints,
      lastUser ? textOf(lastUser) : "",
      input.signal,
      classifierCallee(classifier, request.observer.span),
    ),
  );
  request.entry.guardrails.classifier = verdict;
  if (verdict.action === "block") {
    throw new AppError("validation_error", "the request was blocked by the classifier guardrail", {
      openai_code: "content_policy_violation",
      param: input.inputParam ?? "messages",
    });
  }
}

/** Step (6): the deployment's prompt template and retrieval; a retrieved passage may be refused. */
export async function processPrompt(
  chat: ChatCall,
  context: InferenceContext,
  messages: ChatMessage[],
): Promise<ChatMessage[]> {
  const { request } = chat;
  const processed = await request.step("prompt processing", () =>
    chat.runtime.port.processPrompt(context, messages),
  );
  if (processed.retrieval) request.entry.retrieval = processed.retrieval;
  if (processed.blockedBy) throw inputBlocked(processed.blockedBy, chat.input.inputParam);
  return processed.messages;
}

function cacheRequest(input: ChatInput, context: InferenceContext, messages: ChatMessage[]): CacheRequest {
  return {
    orgId: context.orgId,
    deployment: context.deployment,
    policy: context.cache,
    body: { ...input.body, messages },
    outputPolicy: context.guardrails?.output,
    directive: input.cacheDirective,
    embeddingEndpoints: context.cacheEmbeddingEndpoints,
  };
}

/**
 * Step (7): the deployment's replicas, then its routing policy's fallbacks (routing.ts); the input
 * scanners of the parallel mode run beside the call. A replica's 4xx (before any streaming began)
 * reaches the client as it is (refusal.ts).
 */
export async function sendChat(
  chat: ChatCall,
  context: InferenceContext,
  messages: ChatMessage[],
  restOfInput: (() => Promise<void>) | undefined,
): Promise<RoutedResponse> {
  const { runtime, request, input } = chat;
  const { body } = input;
  const stream = body.stream === true;
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
    const error = await replicaError(upstream.response);
    upstream.release();
    throw error;
  }
  return upstream;
}

/**
 * Steps (8) and (9) for a stream: each chunk named for the deployment asked for and passed through the
 * output guardrails; at its end the answer kept (when whole), checked and logged.
 */
export function relayChatStream(
  chat: ChatCall,
  upstream: RoutedResponse,
  messages: ChatMessage[],
): { kind: "stream"; stream: ReadableStream<Uint8Array> } {
  const { request, input } = chat;
  const { body } = input;
  const output = chat.scan.guard?.output(true);
  const assembler = chat.lead ? new ChunkAssembler() : undefined;
  const relayed = relaySse(upstream.response.body ?? emptyBody(), {
    includeUsage: body.stream_options?.include_usage === true,
    mapChunk: (chunk: ReceivedChunk) => {
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
      if (whole) chat.lead?.complete(whole);
      else chat.lead?.abandon();
      if (request.observer.tracing) request.observer.annotate(responseAttributes(chat.runtime, outcome));
      finishStream(request, output, outcome, messages);
    },
  });
  return { kind: "stream", stream: relayed };
}

/**
 * A stream's end logged: its usage (estimated when the replica sent none), after the output policy's
 * async mode has scanned the whole answer off the loop.
 */
function finishStream(
  request: InferenceRequest,
  output: OutputGuard | undefined,
  outcome: RelayOutcome,
  messages: ChatMessage[],
): void {
  const prompt = estimatePromptTokens(messages);
  const usage = outcome.usage ?? {
    prompt_tokens: prompt,
    completion_tokens: estimateTokens(outcome.content),
    total_tokens: prompt + estimateTokens(outcome.content),
  };
  const done = () => {
    const blockedBy = output?.blockedBy();
    const error = blockedBy
      ? blocked(blockedBy)
      : outcome.error
        ? new AppError("upstream_error", outcome.error)
        : undefined;
    request.finish(usage, error);
  };
  if (!output) {
    done();
    return;
  }
  // The async mode's scan of a long answer runs off the loop; the request is logged after it.
  request
    .step("output guardrails", () => output.finish(outcome.content))
    .then(
      (decision) => {
        request.entry.guardrails.output = decision;
      },
      () => {},
    )
    .finally(done);
}

/** Steps (8) and (9) for one JSON answer: named for the deployment asked for, checked, kept and logged. */
export async function answerJson(
  chat: ChatCall,
  upstream: RoutedResponse,
  messages: ChatMessage[],
): Promise<{ kind: "json"; body: ChatAnswer }> {
  const { request, runtime } = chat;
  let answer: ChatAnswer;
  try {
    answer = await upstream.response.json();
  } catch {
    throw new AppError("upstream_error", "the model's server sent an answer that is not JSON");
  } finally {
    upstream.release();
  }
  request.firstToken();
  answer.model = chat.input.body.model;
  const usage = answer.usage ?? countUsage(messages, answer);
  answer.usage = usage;
  if (request.observer.tracing) request.observer.annotate(answerAttributes(runtime, answer));
  const guard = chat.scan.guard;
  if (guard) {
    const checked = await request.step("output guardrails", () => guard.outputText(answer));
    request.entry.guardrails.output = checked.decision;
    if (checked.blockedBy) throw blocked(checked.blockedBy);
  }
  chat.lead?.complete(answer);
  request.finish(usage);
  return { kind: "json", body: answer };
}

const emptyBody = () => new Response("").body ?? new ReadableStream<Uint8Array>();

/**
 * A kept answer, in the framing the caller asked for. No replica was asked: the log says `cache: hit`
 * with the answer's tokens as saved and costs nothing; the output guardrails checked it when it was
 * computed, under the same output policy (part of its key).
 */
function answerFromCache(
  request: InferenceRequest,
  context: InferenceContext,
  answer: CachedAnswer,
  body: ChatRequestBody,
): ChatResult {
  request.firstToken();
  request.cache("hit", answer.usage);
  request.finish(answer.usage ?? { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 });
  const includeUsage = body.stream_options?.include_usage === true;
  return body.stream === true
    ? { kind: "stream", stream: replayStream(answer, body.model, includeUsage), context, cache: "hit" }
    : { kind: "json", body: replayJson(answer, body.model), context, cache: "hit" };
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

function countUsage(messages: ChatMessage[], answer: ChatAnswer): Usage {
  const choices = answer.choices ?? [];
  const completion = estimateTokens(choices.map((c) => c.message?.content ?? "").join(""));
  const prompt = estimatePromptTokens(messages);
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
}

/** The completion's bound the call sets, if any (max_completion_tokens wins, as OpenAI's). */
function maxTokensOf(body: ChatInput["body"]): number | undefined {
  const bound = body.max_completion_tokens ?? body.max_tokens;
  return typeof bound === "number" ? bound : undefined;
}

/**
 * The JSON Schemas of a request that an engine turns into grammars (response_format's, each tool's
 * parameters), by their parameter names.
 */
function grammarSchemas(body: ChatRequestBody): [string, unknown][] {
  const found: [string, unknown][] = [];
  const format = body.response_format;
  if (isObjectLike(format) && format.type === "json_schema" && isObjectLike(format.json_schema))
    found.push(["response_format.json_schema.schema", format.json_schema.schema]);
  if (Array.isArray(body.tools))
    body.tools.forEach((tool: unknown, i) => {
      if (isObjectLike(tool) && isObjectLike(tool.function))
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
