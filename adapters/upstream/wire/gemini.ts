// Google's Gemini API behind the platform's OpenAI-shaped inside: chat becomes
// models/{model}:generateContent or :streamGenerateContent?alt=sse, embeddings :batchEmbedContents; answers, streams and errors come back as OpenAI's. What Gemini cannot do here
// (several choices, logprobs, logit_bias, images by URL) is refused with a 400 naming the field.

import {
  type BatchEmbedContentsRequest,
  type Candidate,
  type Content,
  checkEmbeddings,
  checkError,
  checkResponse,
  type FunctionCallingConfig,
  type GenerateContentRequest,
  type GenerateContentResponse,
  type GenerationConfig,
  type Part,
  type UsageMetadata,
} from "#contracts/gemini/generate-content.ts";
import type {
  ChatCompletion,
  ChatCompletionChunk,
  ChatCompletionRequest,
  ChatMessage,
  FinishReason,
  ToolCall,
  Usage,
} from "#contracts/openai/chat.ts";
import type { EmbeddingsRequest, EmbeddingsResponse } from "#contracts/openai/embeddings.ts";
import { isObjectLike } from "#core/json.ts";
import {
  baseUrlOf,
  chatCompletionFrom,
  chunkOf,
  errorResponse,
  eventDataOf,
  imageUrlOf,
  jsonOf,
  malformed,
  newCallId,
  nowSeconds,
  refuseBeyondOneChoice,
  type StreamTranslator,
  sseResponse,
  stopsOf,
  streamError,
  type Turn,
  textOf,
  translateStream,
  turnsOf,
  usageOf,
  WireRefusal,
} from "./openai-side.ts";
import type { OpenAiPath, UpstreamTarget, WireAdapter, WireRequest } from "./wire.ts";

const upstreamName = "Gemini";

const baseOf = (target: UpstreamTarget) => baseUrlOf(target.endpoint, ["v1beta", "v1"]);
/** `gemini-2.5-flash` and `models/gemini-2.5-flash` both name the model. */
const modelOf = (target: UpstreamTarget) => target.model.replace(/^models\//, "");
const headersOf = (target: UpstreamTarget): Record<string, string> =>
  target.apiKey ? { "x-goog-api-key": target.apiKey } : {};

// ---- the request ----

export function toGenerateContent(body: ChatCompletionRequest): GenerateContentRequest {
  refuseUnsupported(body);
  const { system, contents } = conversationOf(body.messages);
  const request: GenerateContentRequest = { contents };
  if (system) request.systemInstruction = { parts: [{ text: system }] };
  if (body.tools && body.tools.length > 0) {
    request.tools = [
      {
        functionDeclarations: body.tools.map((tool) => ({
          name: tool.function.name,
          ...(tool.function.description ? { description: tool.function.description } : {}),
          ...(tool.function.parameters ? { parametersJsonSchema: tool.function.parameters } : {}),
        })),
      },
    ];
  }
  const calling = functionCallingOf(body.tool_choice);
  if (calling) request.toolConfig = { functionCallingConfig: calling };
  const config = generationConfigOf(body);
  if (Object.keys(config).length > 0) request.generationConfig = config;
  return request;
}

function refuseUnsupported(body: ChatCompletionRequest): void {
  refuseBeyondOneChoice(body, {
    n: "one choice per request through Gemini: n must be 1",
    logprobs: "log probabilities are not translated from Gemini",
    logit_bias: "Gemini does not take logit_bias",
  });
}

function functionCallingOf(choice: ChatCompletionRequest["tool_choice"]): FunctionCallingConfig | undefined {
  if (choice === undefined) return undefined;
  if (choice === "none") return { mode: "NONE" };
  if (choice === "auto") return { mode: "AUTO" };
  if (choice === "required") return { mode: "ANY" };
  return { mode: "ANY", allowedFunctionNames: [choice.function.name] };
}

function generationConfigOf(body: ChatCompletionRequest): GenerationConfig {
  const config: GenerationConfig = {};
  const maxTokens = body.max_completion_tokens ?? body.max_tokens;
  const stops = stopsOf(body.stop);
  if (body.temperature !== undefined) config.temperature = body.temperature;
  if (body.top_p !== undefined) config.topP = body.top_p;
  if (maxTokens !== undefined) config.maxOutputTokens = maxTokens;
  if (stops && stops.length > 0) config.stopSequences = stops;
  if (body.seed !== undefined) config.seed = body.seed;
  if (body.presence_penalty !== undefined) config.presencePenalty = body.presence_penalty;
  if (body.frequency_penalty !== undefined) config.frequencyPenalty = body.frequency_penalty;
  const format = body.response_format;
  if (format?.type === "json_object") config.responseMimeType = "application/json";
  if (format?.type === "json_schema") {
    config.responseMimeType = "application/json";
    if (format.json_schema.schema) config.responseJsonSchema = format.json_schema.schema;
  }
  return config;
}

/**
 * OpenAI's messages as Gemini's contents: system and developer turns become systemInstruction; the
 * assistant is `model`; a tool result is a user turn's functionResponse, named by the call it answers
 * (Gemini matches results to calls by function name); consecutive turns of one role merge.
 */
function conversationOf(input: readonly ChatMessage[]): { system: string; contents: Content[] } {
  const callNames = new Map<string, string>();
  const { system, turns } = turnsOf(upstreamName, input, (message, i): Turn<"user" | "model", Part> => {
    switch (message.role) {
      case "assistant": {
        const parts: Part[] = [];
        const text = textOf(message.content);
        if (text) parts.push({ text });
        (message.tool_calls ?? []).forEach((call, j) => {
          callNames.set(call.id, call.function.name);
          const param = `messages[${i}].tool_calls[${j}].function.arguments`;
          const signature = thoughtSignatureOf(call);
          parts.push({
            functionCall: { name: call.function.name, args: argsOf(call.function.arguments, param) },
            ...(signature ? { thoughtSignature: signature } : {}),
          });
        });
        return { role: "model", pieces: parts };
      }
      case "tool": {
        const name = callNames.get(message.tool_call_id ?? "");
        if (name === undefined) {
          throw new WireRefusal(
            "a tool message must answer a tool call of an earlier assistant message (Gemini needs its name)",
            `messages[${i}].tool_call_id`,
          );
        }
        return {
          role: "user",
          pieces: [{ functionResponse: { name, response: responseOf(textOf(message.content)) } }],
        };
      }
      default:
        return { role: "user", pieces: userParts(message, i) };
    }
  });
  return { system, contents: turns.map((turn) => ({ role: turn.role, parts: turn.pieces })) };
}

function userParts(message: ChatMessage, i: number): Part[] {
  const content = message.content;
  if (typeof content === "string") return content ? [{ text: content }] : [];
  const parts: Part[] = [];
  (content ?? []).forEach((part, j) => {
    if (part.type === "text") {
      if (part.text) parts.push({ text: part.text });
      return;
    }
    const data =
      part.type === "image_url" ? /^data:([^;,]+);base64,(.*)$/s.exec(imageUrlOf(part) ?? "") : null;
    if (!data) {
      throw new WireRefusal(
        `Gemini takes images inline only (data: URLs); content parts of type ${JSON.stringify(part.type)} otherwise cannot be sent`,
        `messages[${i}].content[${j}]`,
      );
    }
    parts.push({ inlineData: { mimeType: data[1] ?? "", data: data[2] ?? "" } });
  });
  return parts;
}

function argsOf(text: string, param: string): Record<string, unknown> {
  if (text.trim() === "") return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {}
  if (!isObjectLike(parsed))
    throw new WireRefusal("a tool call's arguments must be a JSON object for Gemini", param);
  return parsed;
}

/** Gemini's functionResponse.response is an object: a result that is one goes as is, any other text wrapped. */
function responseOf(text: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(text);
    if (isObjectLike(parsed)) return parsed;
  } catch {}
  return { result: text };
}

export function toBatchEmbed(body: EmbeddingsRequest, model: string): BatchEmbedContentsRequest {
  const inputs = typeof body.input === "string" ? [body.input] : body.input;
  return {
    requests: inputs.map((text) => ({ model: `models/${model}`, content: { parts: [{ text }] } })),
  };
}

// ---- the answer ----

const filtered = new Set(["SAFETY", "RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII", "IMAGE_SAFETY"]);

/** Gemini says STOP after function calls too: a turn that called functions ends with tool_calls. */
export function finishReasonOf(reason: string | undefined, calledFunctions: boolean): FinishReason {
  if (reason === "MAX_TOKENS") return "length";
  if (reason !== undefined && filtered.has(reason)) return "content_filter";
  return calledFunctions ? "tool_calls" : "stop";
}

/** promptTokenCount includes the cached tokens; thinking tokens are billed as output, so counted as such. */
function usageFrom(usage: UsageMetadata | undefined): Usage {
  return usageOf(
    usage?.promptTokenCount ?? 0,
    (usage?.candidatesTokenCount ?? 0) + (usage?.thoughtsTokenCount ?? 0),
    usage?.cachedContentTokenCount ?? 0,
  );
}

/**
 * A function call's thought signature travels in OpenAI's shape as Google's own OpenAI-compatible API
 * carries it, `extra_content.google.thought_signature` on the tool call, so that a client sending the
 * assistant message back unchanged sends it back too (Gemini 3 refuses a function call turn without it).
 */
type SignedToolCall = ToolCall & { extra_content?: { google: { thought_signature: string } } };

const signed = (signature: string | undefined) =>
  signature ? { extra_content: { google: { thought_signature: signature } } } : {};

/** The signature a client sent back on a tool call (an open field of OpenAI's tool call object). */
function thoughtSignatureOf(call: object): string | undefined {
  const extra = "extra_content" in call ? call.extra_content : undefined;
  const google = typeof extra === "object" && extra !== null && "google" in extra ? extra.google : undefined;
  const signature =
    typeof google === "object" && google !== null && "thought_signature" in google
      ? google.thought_signature
      : undefined;
  return typeof signature === "string" ? signature : undefined;
}

/** A candidate's answer text (thought summaries left out) and its function calls. */
function partsOf(candidate: Candidate | undefined): { text: string; calls: SignedToolCall[] } {
  const parts = candidate?.content?.parts ?? [];
  const text = parts
    .filter((part) => part.text !== undefined && !part.thought)
    .map((part) => part.text)
    .join("");
  const calls: SignedToolCall[] = parts.flatMap((part) =>
    part.functionCall
      ? [
          {
            id: part.functionCall.id ?? newCallId(),
            type: "function" as const,
            function: {
              name: part.functionCall.name,
              arguments: JSON.stringify(part.functionCall.args ?? {}),
            },
            ...signed(part.thoughtSignature),
          },
        ]
      : [],
  );
  return { text, calls };
}

const idOf = (answer: GenerateContentResponse) =>
  `chatcmpl-${answer.responseId ?? crypto.randomUUID().replaceAll("-", "")}`;

export function chatCompletionOf(answer: GenerateContentResponse, fallbackModel: string): ChatCompletion {
  const candidate = answer.candidates?.[0];
  const { text, calls } = partsOf(candidate);
  // A prompt Gemini blocked has no candidate, only promptFeedback.blockReason.
  const blocked = candidate === undefined && answer.promptFeedback?.blockReason !== undefined;
  return chatCompletionFrom({
    id: idOf(answer),
    model: answer.modelVersion ?? fallbackModel,
    text,
    toolCalls: calls,
    finish: blocked ? "content_filter" : finishReasonOf(candidate?.finishReason, calls.length > 0),
    usage: usageFrom(answer.usageMetadata),
  });
}

/**
 * Google's `{error: {code, message, status}}` as OpenAI's body. The status is kept, except that a key
 * Google refuses comes as 400 API_KEY_INVALID: it is a credential refused, so it becomes the 401 the
 * gateway treats as the upstream refusing the platform's credential.
 */
async function errorOf(upstream: Response): Promise<Response> {
  const body = await jsonOf(upstream);
  if (!checkError.Check(body)) {
    return errorResponse(upstream.status, `${upstreamName} answered HTTP ${upstream.status}`, null);
  }
  const keyRefused = (body.error.details ?? []).some((detail) => detail.reason === "API_KEY_INVALID");
  return errorResponse(keyRefused ? 401 : upstream.status, body.error.message, body.error.status ?? null);
}

/** Each SSE event is a whole GenerateContentResponse holding the next piece of the candidate. */
function streamTranslator(fallbackModel: string): StreamTranslator {
  let id: string | undefined;
  let model = fallbackModel;
  const created = nowSeconds();
  let usage: UsageMetadata | undefined;
  let tools = 0;
  let finished = false;
  const chunk = (
    delta: ChatCompletionChunk["choices"][number]["delta"],
    finish: FinishReason = null,
  ): ChatCompletionChunk => chunkOf({ id: id ?? "chatcmpl-gemini", created, model }, delta, finish);
  const on = (answer: GenerateContentResponse): ChatCompletionChunk[] => {
    const out: ChatCompletionChunk[] = [];
    if (id === undefined) {
      id = idOf(answer);
      model = answer.modelVersion ?? model;
      out.push(chunk({ role: "assistant", content: "" }));
    }
    if (answer.usageMetadata) usage = answer.usageMetadata;
    const candidate = answer.candidates?.[0];
    const { text, calls } = partsOf(candidate);
    if (text) out.push(chunk({ content: text }));
    if (calls.length > 0) {
      // Gemini sends each call whole: one delta with its name and all its arguments.
      out.push(
        chunk({
          tool_calls: calls.map((call) => ({
            index: tools++,
            id: call.id,
            type: "function" as const,
            function: call.function,
            ...(call.extra_content ? { extra_content: call.extra_content } : {}),
          })),
        }),
      );
    }
    const blocked = candidate === undefined && answer.promptFeedback?.blockReason !== undefined;
    if (candidate?.finishReason || blocked) {
      finished = true;
      out.push(chunk({}, blocked ? "content_filter" : finishReasonOf(candidate?.finishReason, tools > 0)));
    }
    return out;
  };
  return {
    onEvent(_name, data) {
      const event = eventDataOf(upstreamName, data);
      if ("error" in event) return event.error;
      const { parsed } = event;
      if (checkError.Check(parsed)) {
        return {
          error: {
            message: parsed.error.message,
            type: "server_error",
            param: null,
            code: parsed.error.status ?? null,
          },
        };
      }
      if (!checkResponse.Check(parsed))
        return streamError(`${upstreamName} sent an event that does not follow its API`);
      return on(parsed);
    },
    onEnd() {
      if (!finished) return streamError(`${upstreamName} ended the stream without a finish reason`);
      return [{ ...chunk({}), choices: [], usage: usageFrom(usage) }];
    },
  };
}

function embeddingsOf(body: unknown, model: string): Response {
  if (!checkEmbeddings.Check(body)) return malformed(upstreamName, "embeddings");
  const list: EmbeddingsResponse = {
    object: "list",
    data: body.embeddings.map((embedding, index) => ({
      object: "embedding",
      index,
      embedding: embedding.values,
    })),
    model,
    // batchEmbedContents reports no token counts.
    usage: { prompt_tokens: 0, total_tokens: 0 },
  };
  return Response.json(list);
}

// ---- the adapter ----

export const geminiWire: WireAdapter = {
  id: "gemini",

  request(target: UpstreamTarget, path: OpenAiPath, body: string, stream: boolean): WireRequest {
    const base = `${baseOf(target)}/v1beta/models/${encodeURIComponent(modelOf(target))}`;
    const headers = { ...headersOf(target), "content-type": "application/json" };
    if (path === "/v1/embeddings") {
      const parsed: EmbeddingsRequest = JSON.parse(body);
      return {
        url: `${base}:batchEmbedContents`,
        headers,
        body: JSON.stringify(toBatchEmbed(parsed, modelOf(target))),
      };
    }
    const chat: ChatCompletionRequest = JSON.parse(body);
    return {
      url: stream ? `${base}:streamGenerateContent?alt=sse` : `${base}:generateContent`,
      headers: stream ? { ...headers, accept: "text/event-stream" } : headers,
      body: JSON.stringify(toGenerateContent(chat)),
    };
  },

  async response(upstream: Response, path: OpenAiPath, stream: boolean, target: UpstreamTarget) {
    if (!upstream.ok) return errorOf(upstream);
    if (path === "/v1/embeddings") return embeddingsOf(await jsonOf(upstream), target.model);
    if (stream) {
      if (!upstream.body) return malformed(upstreamName, "an empty stream");
      return sseResponse(translateStream(upstream.body, streamTranslator(target.model)));
    }
    const answer = await jsonOf(upstream);
    if (!checkResponse.Check(answer)) return malformed(upstreamName, "an answer");
    const chat = chatCompletionOf(answer, target.model);
    return Response.json(chat);
  },

  probe(target: UpstreamTarget) {
    return { url: `${baseOf(target)}/v1beta/models`, headers: headersOf(target) };
  },
};
