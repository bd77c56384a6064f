// One chat completion on one context sequence: OpenAI messages become node-llama-cpp chat history, the
// model's chat wrapper renders them, LlamaChat samples, and the counts come from the model's tokenizer.
// What the answer may be (free text, JSON under a schema, tool calls) is decided here once, from the request.

import type {
  ChatHistoryItem,
  ChatModelFunctions,
  ChatWrapper,
  Llama,
  LlamaContextSequence,
  LlamaGrammar,
  LlamaModel,
  Token,
} from "node-llama-cpp";
import { LlamaChat, TokenBias } from "node-llama-cpp";
import type { EngineChatCompletionRequest, FinishReason } from "#contracts/openai/chat.ts";
import { schemaSizeProblem } from "../schema-limits.ts";
import type { Lockstep } from "./batching.ts";
import { tapEvaluation } from "./evaluate-tap.ts";
import { addSystemText, toChatHistory } from "./history.ts";
import { compileSchema, createJsonGrammar, UnsupportedSchemaError } from "./json-schema.ts";
import { LogprobQueue, type SampledToken, sampledToken, type TokenDescriber } from "./logprobs.ts";
import { invalidRequest, type Parsed } from "./openai-shapes.ts";
import { type ArgumentsCheck, ForcedCallReader, planTools } from "./tools.ts";
import { utf8Guard } from "./utf8-guard.ts";

/** Sampling defaults for fields the request leaves out: those of llama.cpp's own server (llama-server). */
export const samplingDefaults = { temperature: 0.8, topP: 0.95, topK: 40, minP: 0.05 } as const;

/** What the answer may be. */
export type OutputMode =
  | { kind: "text" }
  /** response_format json_object / json_schema: the grammar lets only valid JSON through, `check` the rest. */
  | { kind: "json"; grammar: LlamaGrammar; check: ArgumentsCheck }
  /** tool_choice auto: the chat wrapper's own function calling, parameters grammar-constrained. */
  | {
      kind: "tools";
      functions: ChatModelFunctions;
      maxParallelCalls: number | undefined;
      checks: Map<string, ArgumentsCheck>;
    }
  /** tool_choice required or named: one call, the whole output grammar-constrained. */
  | { kind: "call"; grammar: LlamaGrammar; checks: Map<string, ArgumentsCheck> };

export interface GenerationInput {
  /** Ends with the model turn that the generation fills (empty, or holding the calls whose results came back). */
  history: ChatHistoryItem[];
  output: OutputMode;
  /** logit_bias: token id → added to its logit (-100: never). */
  logitBias: [Token, number][];
  /** logprobs: true, with this many alternatives per token. */
  logprobs: { top: number } | undefined;
  /** The prompt as the chat wrapper renders it, tokenized: what the sequence will hold before the answer. */
  prompt: Token[];
  /** What the request asked for, cut to the room left in the sequence's context. */
  maxTokens: number;
  temperature: number;
  topP: number;
  topK: number;
  minP: number;
  seed: number | undefined;
  stop: string[];
  presencePenalty: number;
  frequencyPenalty: number;
  /** false: the sequence is emptied first and the whole prompt evaluated (llama-server's `cache_prompt`). */
  cachePrompt: boolean;
}

/** A tool call as generated: the arguments are JSON text, exactly as streamed. */
export interface GeneratedCall {
  name: string;
  arguments: string;
}

/** What a stream learns as the model writes: text (with its tokens' logprobs) or pieces of tool calls. */
export interface GenerationEvents {
  onText?: (text: string, logprobs: SampledToken[] | undefined) => void;
  /** `name` comes with a call's first piece; `arguments` pieces joined are the call's arguments. */
  onToolCall?: (piece: { index: number; name?: string; arguments?: string }) => void;
}

export interface GenerationOutcome {
  text: string;
  toolCalls: GeneratedCall[];
  /** Per content token, when asked for. */
  logprobs: SampledToken[] | undefined;
  finishReason: FinishReason;
  /** The stop string (`stop`) that ended the text, reported as vLLM does (`stop_reason`). */
  stopSequence?: string | undefined;
  promptTokens: number;
  /** Prompt tokens the sequence already held from its previous request: reused, not evaluated. */
  cachedTokens: number;
  completionTokens: number;
  /** The signal ended it before the model did. */
  aborted: boolean;
  /**
   * A finished answer (JSON under a schema, or a tool call's arguments) that the schema's check refused: why.
   * Such an answer is never returned as if valid.
   */
  invalid?: string;
}

/** What the request builder needs to know about the loaded model. */
export interface PromptRenderer {
  llama: Llama;
  model: LlamaModel;
  tokens: TokenDescriber;
  chatWrapper: ChatWrapper;
  /** Tokens one sequence holds: prompt and completion together. */
  contextSize: number;
}

/**
 * Turns a checked request into a generation, or a 400 (unsupported message or schema, a tool choice without
 * tools, a prompt longer than the context).
 */
export async function buildGeneration(
  req: EngineChatCompletionRequest,
  renderer: PromptRenderer,
): Promise<Parsed<GenerationInput>> {
  const history = toChatHistory(req.messages);
  if (!history.ok) return history;
  // After tool results the model goes on with the same turn (it called, it read the results, now it answers).
  const last = history.value.at(-1);
  if (last?.type !== "model" || !last.response.some((item) => typeof item !== "string"))
    history.value.push({ type: "model", response: [] });
  const output = await outputMode(req, renderer.llama);
  if (!output.ok) return output;
  if (output.value.instructions) addSystemText(history.value, output.value.instructions);
  const bias = logitBias(req, renderer);
  if (!bias.ok) return bias;
  const prompt = promptTokensOf(
    renderer,
    history.value,
    output.value.mode.kind === "tools" ? output.value.mode.functions : undefined,
  );
  const promptTokens = prompt.length;
  // At least one token of room, or there is nothing to generate.
  const room = renderer.contextSize - promptTokens - 1;
  if (room < 1) {
    return {
      ok: false,
      error: invalidRequest(
        `This model's context holds ${renderer.contextSize} tokens; the messages take ${promptTokens}.`,
        "messages",
        "context_length_exceeded",
      ),
    };
  }
  const asked = req.max_completion_tokens ?? req.max_tokens ?? undefined;
  // An empty stop string would end every answer at once: it stops nothing, as in OpenAI's API.
  const stop = (req.stop == null ? [] : typeof req.stop === "string" ? [req.stop] : req.stop).filter(
    (text) => text.length > 0,
  );
  const logprobs = req.logprobs === true ? { top: req.top_logprobs ?? 0 } : undefined;
  return {
    ok: true,
    value: {
      history: history.value,
      output: output.value.mode,
      logitBias: bias.value,
      logprobs,
      prompt,
      maxTokens: Math.min(asked ?? room, room),
      temperature: req.temperature ?? samplingDefaults.temperature,
      // With logprobs the distribution reported is the one sampled from; OpenAI's default top_p is 1, and
      // llama-server's top_k/min_p (not OpenAI parameters) would hide all but a few candidates.
      topP: req.top_p ?? (logprobs ? 1 : samplingDefaults.topP),
      topK: logprobs ? 0 : samplingDefaults.topK,
      minP: logprobs ? 0 : samplingDefaults.minP,
      seed: req.seed ?? undefined,
      stop,
      presencePenalty: req.presence_penalty ?? 0,
      frequencyPenalty: req.frequency_penalty ?? 0,
      cachePrompt: req.cache_prompt !== false,
    },
  };
}

/** response_format and tool_choice → what the answer may be; `instructions` go into the system prompt. */
async function outputMode(
  req: EngineChatCompletionRequest,
  llama: Llama,
): Promise<Parsed<{ mode: OutputMode; instructions?: string }>> {
  const tools = planTools(req);
  if (!tools.ok) return tools;
  const format = req.response_format?.type ?? "text";
  if (tools.value.kind === "forced") {
    // The answer is a call; response_format shapes text answers, of which there will be none.
    const { schema, instructions, checks } = tools.value;
    const grammar = await grammarOrRefusal(llama, schema, "tools");
    return grammar.ok
      ? { ok: true, value: { mode: { kind: "call", grammar: grammar.value.grammar, checks }, instructions } }
      : grammar;
  }
  if (tools.value.kind === "auto") {
    if (format !== "text")
      return refuse(
        "response_format cannot be combined with tool_choice auto on this engine: use tool_choice none or required",
        "response_format",
      );
    const { functions, maxParallelCalls, checks } = tools.value;
    return { ok: true, value: { mode: { kind: "tools", functions, maxParallelCalls, checks } } };
  }
  if (req.response_format?.type === "json_schema") {
    const { schema } = req.response_format.json_schema;
    const tooLarge = schemaSizeProblem(schema ?? {});
    if (tooLarge) return refuse(`the schema ${tooLarge}`, "response_format.json_schema.schema");
    const grammar = await grammarOrRefusal(llama, schema ?? {}, "response_format.json_schema.schema");
    return grammar.ok ? { ok: true, value: { mode: { kind: "json", ...grammar.value } } } : grammar;
  }
  if (format === "json_object") {
    const grammar = await grammarOrRefusal(llama, { type: "object" }, "response_format");
    return grammar.ok ? { ok: true, value: { mode: { kind: "json", ...grammar.value } } } : grammar;
  }
  return { ok: true, value: { mode: { kind: "text" } } };
}

/** A grammar and a check for the schema, or a 400 naming `param` when the schema cannot become one. */
async function grammarOrRefusal(
  llama: Llama,
  schema: unknown,
  param: string,
): Promise<Parsed<{ grammar: LlamaGrammar; check: ArgumentsCheck }>> {
  try {
    const compiled = compileSchema(schema);
    return {
      ok: true,
      value: { grammar: await createJsonGrammar(llama, compiled.gbnf), check: compiled.check },
    };
  } catch (error) {
    if (error instanceof UnsupportedSchemaError) return refuse(error.message, param);
    const why = error instanceof Error ? error.message : String(error);
    return refuse(`the schema cannot be turned into a grammar: ${why}`, param);
  }
}

/** logit_bias, its token ids checked against the vocabulary. */
function logitBias(req: EngineChatCompletionRequest, renderer: PromptRenderer): Parsed<[Token, number][]> {
  const size = renderer.tokens.vocabularySize;
  const out: [Token, number][] = [];
  for (const [id, value] of Object.entries(req.logit_bias ?? {})) {
    const token = Number(id);
    if (size > 0 && token >= size)
      return refuse(
        `logit_bias: token ${id} is not in this model's vocabulary (0 to ${size - 1})`,
        "logit_bias",
      );
    out.push([token as Token, value]);
  }
  return { ok: true, value: out };
}

/**
 * node-llama-cpp's TokenBias: the value is added to the token's logit, and -100 bans it (as OpenAI: "-100 should
 * result in a ban").
 */
function requestBias(sequence: LlamaContextSequence, input: GenerationInput): TokenBias {
  const bias = new TokenBias(sequence.model.tokenizer);
  for (const [token, value] of input.logitBias) bias.set(token, value <= -100 ? "never" : { logit: value });
  return bias;
}

function refuse(message: string, param: string): Parsed<never> {
  return { ok: false, error: invalidRequest(message, param) };
}

/** The stop string a custom stop trigger was made of (the request's `stop` entries are plain strings). */
function stopString(trigger: readonly (string | Token)[]): string | undefined {
  return trigger.every((part) => typeof part === "string") ? trigger.join("") : undefined;
}

/**
 * The prompt exactly as the chat wrapper renders it (special tokens included), tokenized by the model's
 * tokenizer: the tokens LlamaChat will want the sequence to hold before the answer's first token.
 */
export function promptTokensOf(
  renderer: Pick<PromptRenderer, "chatWrapper" | "model">,
  history: ChatHistoryItem[],
  functions?: ChatModelFunctions,
): Token[] {
  const { contextText } = renderer.chatWrapper.generateContextState({
    chatHistory: history,
    ...(functions ? { availableFunctions: functions, documentFunctionParams: true } : {}),
  });
  return contextText.tokenize(renderer.model.tokenizer);
}

/**
 * A finished answer against its schema: the JSON text (json mode) or each call's arguments (tool modes).
 * undefined when valid or when there is no schema; else why it is not.
 */
export function checkAnswer(output: OutputMode, text: string, calls: GeneratedCall[]): string | undefined {
  if (output.kind === "text") return undefined;
  if (output.kind === "json") return checkJson(text, output.check);
  for (const call of calls) {
    const check = output.checks.get(call.name);
    const why = check ? checkJson(call.arguments, check) : `no tool is named "${call.name}"`;
    if (why !== undefined) return `the arguments of ${call.name}: ${why}`;
  }
  return undefined;
}

function checkJson(text: string, check: ArgumentsCheck): string | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return "not valid JSON";
  }
  return check(value);
}

/**
 * Runs the generation on a sequence that may still hold an earlier request's tokens: LlamaChat keeps the part
 * they share with this prompt and evaluates only the rest (`cachedTokens` says how much it kept). Text and tool
 * call pieces are passed to `events` as the model produces them; an aborted signal stops it and resolves with
 * what was produced so far. Every decode step goes through `lockstep`, the context's, so that concurrent
 * generations share batches.
 */
export async function generate(
  sequence: LlamaContextSequence,
  renderer: Pick<PromptRenderer, "chatWrapper" | "tokens">,
  input: GenerationInput,
  options: { signal: AbortSignal; lockstep: Lockstep } & GenerationEvents,
): Promise<GenerationOutcome> {
  const chat = new LlamaChat({ contextSequence: sequence, chatWrapper: renderer.chatWrapper });
  const meterBefore = sequence.tokenMeter.getState();
  const logprobs = input.logprobs ? new LogprobQueue() : undefined;
  const { tap, guard, restore } = tapSampling(sequence, renderer, input, options.lockstep, logprobs);
  const forced = input.output.kind === "call" ? new ForcedCallReader() : undefined;
  const calls: GeneratedCall[] = [];
  let streamed = "";
  const onText = (text: string) => {
    streamed += text;
    if (forced) {
      const piece = forced.push(text);
      if (piece.name !== undefined || piece.arguments) options.onToolCall?.({ index: 0, ...piece });
      return;
    }
    const tokens = logprobs?.take(text);
    if (tokens) contentLogprobs.push(...tokens);
    options.onText?.(text, tokens);
  };
  const contentLogprobs: SampledToken[] = [];
  const outcome = (
    text: string,
    finishReason: FinishReason,
    aborted: boolean,
    stopSequence?: string,
  ): GenerationOutcome => {
    if (forced) {
      const { rest, call } = forced.finish();
      if (rest) options.onToolCall?.({ index: 0, arguments: rest });
      if (call) calls.push(call);
    }
    const invalid = finishReason === "stop" && !aborted ? checkAnswer(input.output, text, calls) : undefined;
    return {
      text: forced ? "" : text,
      toolCalls: calls,
      logprobs: logprobs && !forced ? contentLogprobs : undefined,
      // A call cut by max_tokens stays "length": its arguments are not whole.
      finishReason: finishReason === "stop" && calls.length > 0 ? "tool_calls" : finishReason,
      ...(stopSequence === undefined ? {} : { stopSequence }),
      promptTokens: input.prompt.length,
      cachedTokens: tap.cachedTokens,
      completionTokens: Math.min(sequence.tokenMeter.diff(meterBefore).usedOutputTokens, input.maxTokens),
      aborted,
      ...(invalid === undefined ? {} : { invalid }),
    };
  };
  try {
    // Under a grammar the UTF-8 guard adds its bans to the request's, step by step.
    const tokenBias = guard ?? (input.logitBias.length > 0 ? requestBias(sequence, input) : undefined);
    const common = samplingOptions(input, options.signal, tokenBias, onText);
    const { response, stopReason, stopSequence } = await respond(
      chat,
      input,
      common,
      calls,
      options.onToolCall,
    );
    return outcome(
      response,
      stopReason === "maxTokens" ? "length" : "stop",
      stopReason === "abort",
      stopSequence,
    );
  } catch (error) {
    // Aborted before the first token: node-llama-cpp throws the signal's reason instead of returning.
    if (!options.signal.aborted) throw error;
    return outcome(streamed, "stop", true);
  } finally {
    restore();
    chat.dispose();
  }
}

/** What the tap on the sequence's evaluation has seen so far. */
interface SamplingTap {
  /** Prompt tokens the sequence kept from an earlier request. */
  cachedTokens: number;
  /** The token sampled last, for the UTF-8 guard. */
  lastSampled: Token | undefined;
}

/**
 * Taps the sequence's evaluation for the lockstep, the tokens kept, and each sampled token (its logprobs,
 * and the UTF-8 guard that a grammar's output needs); `restore` removes the tap.
 */
function tapSampling(
  sequence: LlamaContextSequence,
  renderer: Pick<PromptRenderer, "tokens">,
  input: GenerationInput,
  lockstep: Lockstep,
  logprobs: LogprobQueue | undefined,
) {
  const tap: SamplingTap = { cachedTokens: 0, lastSampled: undefined };
  const guard =
    input.output.kind === "text"
      ? undefined
      : utf8Guard(
          () => tap.lastSampled,
          renderer.tokens,
          () => requestBias(sequence, input),
        );
  const top = input.logprobs?.top ?? 0;
  const restore = tapEvaluation(sequence, {
    lockstep,
    probabilities: logprobs !== undefined,
    onFirstEvaluation: (kept) => {
      tap.cachedTokens = Math.min(kept, input.prompt.length);
    },
    onToken:
      logprobs || guard
        ? (token, probabilities) => {
            tap.lastSampled = token;
            if (logprobs && probabilities)
              logprobs.add(sampledToken(renderer.tokens, token, probabilities, top));
          }
        : undefined,
  });
  return { tap, guard, restore };
}

/** What every generation of a request passes to LlamaChat, whatever its output. */
function samplingOptions(
  input: GenerationInput,
  signal: AbortSignal,
  tokenBias: TokenBias | (() => TokenBias) | undefined,
  onTextChunk: (text: string) => void,
) {
  const penalize = input.presencePenalty !== 0 || input.frequencyPenalty !== 0;
  return {
    signal,
    stopOnAbortSignal: true,
    maxTokens: input.maxTokens,
    temperature: input.temperature,
    topP: input.topP,
    topK: input.topK,
    minP: input.minP,
    // node-llama-cpp's default seed is the current second: requests within one second would draw the
    // same random numbers (identical answers to one prompt at temperature 1). A request without a seed
    // gets its own, as OpenAI's and llama-server's do.
    seed: input.seed ?? randomSeed(),
    ...(tokenBias ? { tokenBias } : {}),
    customStopTriggers: input.stop,
    // OpenAI's penalties and llama.cpp's are the same formula (logit -= count·frequency + presence), so
    // they pass through; llama.cpp's multiplicative repeat penalty stays off, as OpenAI has none.
    repeatPenalty: penalize
      ? { penalty: 1, presencePenalty: input.presencePenalty, frequencyPenalty: input.frequencyPenalty }
      : (false as const),
    onTextChunk,
  };
}

/** LlamaChat's answer: the text, why it stopped, the stop string it met; the tool calls go to `calls`. */
async function respond(
  chat: LlamaChat,
  input: GenerationInput,
  common: ReturnType<typeof samplingOptions>,
  calls: GeneratedCall[],
  onToolCall: GenerationEvents["onToolCall"],
): Promise<Responded> {
  const output = input.output;
  if (output.kind === "tools") {
    const started = new Set<number>();
    const result = await chat.generateResponse(input.history, {
      ...common,
      functions: output.functions,
      documentFunctionParams: true,
      ...(output.maxParallelCalls ? { maxParallelFunctionCalls: output.maxParallelCalls } : {}),
      onFunctionCallParamsChunk: (chunk) => {
        const first = !started.has(chunk.callIndex);
        started.add(chunk.callIndex);
        onToolCall?.({
          index: chunk.callIndex,
          ...(first ? { name: chunk.functionName } : {}),
          arguments: chunk.paramsChunk,
        });
      },
    });
    for (const call of result.functionCalls ?? [])
      calls.push({ name: call.functionName, arguments: JSON.stringify(call.params ?? {}) });
    return outcomeOf(result);
  }
  const grammar = output.kind === "text" ? undefined : output.grammar;
  return outcomeOf(
    await chat.generateResponse(input.history, { ...common, ...(grammar ? { grammar } : {}) }),
  );
}

interface Responded {
  response: string;
  stopReason: string;
  stopSequence: string | undefined;
}

/** What LlamaChat's answer says of itself, whichever way it was asked for (tools, grammar, text). */
function outcomeOf(result: {
  response: string;
  metadata: { stopReason: string; customStopTrigger?: readonly (string | Token)[] | undefined };
}): Responded {
  const { metadata } = result;
  return {
    response: result.response,
    stopReason: metadata.stopReason,
    stopSequence:
      metadata.stopReason === "customStopTrigger" ? stopString(metadata.customStopTrigger ?? []) : undefined,
  };
}

/** A fresh 31-bit seed for a request that named none. */
function randomSeed(): number {
  return Math.floor(Math.random() * 2 ** 31);
}
