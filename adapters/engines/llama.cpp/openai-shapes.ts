// The OpenAI chat-completions wire format as this worker speaks it: the request check (the contract is
// contracts/openai/chat.ts, the engine's variant of the gateway's request), the refusals of what this
// engine cannot do, and the error body.

import type { TSchema } from "@sinclair/typebox";
import { TypeCompiler } from "@sinclair/typebox/compiler";
import { EngineChatCompletionRequest, RESPONSE_FORMAT_TYPES, type Usage } from "#contracts/openai/chat.ts";
import type { OpenAIError } from "#contracts/openai/error.ts";
import { propertyOf } from "#core/error-chain.ts";

const checkRequest = TypeCompiler.Compile(EngineChatCompletionRequest);

export type Parsed<V> = { ok: true; value: V } | { ok: false; error: OpenAIError };

/** Checks the JSON body; the first problem found becomes a 400 naming the field as OpenAI does (`messages.0.role`). */
export function parseChatRequest(body: unknown): Parsed<EngineChatCompletionRequest> {
  const refused = refuseUnsupported(body);
  if (refused) return { ok: false, error: refused };
  if (checkRequest.Check(body)) return { ok: true, value: body };
  const first = checkRequest.Errors(body).First();
  const param = first?.path ? paramOf(first.path) : null;
  const message = first
    ? `${param || "body"}: ${describe(first.schema, first.message)}`
    : "invalid request body";
  return { ok: false, error: invalidRequest(message, param || null) };
}

/** `/messages/0/content/1` → `messages[0].content[1]`, as OpenAI names a field. */
function paramOf(pointer: string): string {
  return pointer
    .slice(1)
    .split("/")
    .map((part, i) => (/^[0-9]+$/.test(part) ? `[${part}]` : i === 0 ? part : `.${part}`))
    .join("");
}

const TEXT_ONLY = "this model reads text only";

const isResponseFormatType = (type: unknown) => RESPONSE_FORMAT_TYPES.some((known) => known === type);

/**
 * What this engine cannot do is refused by name before the schema check, so the message says why rather than
 * which type was expected: several choices, audio, images and files, unknown response formats.
 */
function refuseUnsupported(body: unknown): OpenAIError | undefined {
  if (typeof body !== "object" || body === null) return undefined;
  const n = propertyOf(body, "n");
  if (typeof n === "number" && n !== 1)
    return invalidRequest(`n must be 1: this engine generates one choice per request (got ${n})`, "n");
  if (propertyOf(body, "audio") != null)
    return invalidRequest(`audio output is not supported: ${TEXT_ONLY}`, "audio");
  const modalities = propertyOf(body, "modalities");
  if (Array.isArray(modalities) && modalities.some((m) => m !== "text"))
    return invalidRequest(`only the "text" modality is supported: ${TEXT_ONLY}`, "modalities");
  if (propertyOf(body, "web_search_options") != null)
    return invalidRequest("web search is not supported by this engine", "web_search_options");
  const format = propertyOf(body, "response_format");
  if (format != null && !isResponseFormatType(propertyOf(format, "type")))
    return invalidRequest(
      `response_format.type must be one of ${RESPONSE_FORMAT_TYPES.map((t) => `"${t}"`).join(", ")} (got ${JSON.stringify(propertyOf(format, "type"))})`,
      "response_format.type",
    );
  if (propertyOf(body, "top_logprobs") != null && propertyOf(body, "logprobs") !== true)
    return invalidRequest("top_logprobs needs logprobs: true", "top_logprobs");
  return refuseNonText(propertyOf(body, "messages"));
}

/** A content part other than text, in any message: this engine reads text only. */
function refuseNonText(messages: unknown): OpenAIError | undefined {
  if (!Array.isArray(messages)) return undefined;
  for (const [i, message] of messages.entries()) {
    const content = propertyOf(message, "content");
    if (!Array.isArray(content)) continue;
    for (const [j, part] of content.entries()) {
      const type = propertyOf(part, "type");
      if (type !== "text")
        return invalidRequest(
          `content parts of type ${JSON.stringify(type)} are not supported: ${TEXT_ONLY}`,
          `messages[${i}].content[${j}]`,
        );
    }
  }
  return undefined;
}

/** TypeBox says "Expected union value" for a bad role; name the values allowed instead. */
function describe(schema: TSchema, fallback: string): string {
  const options: unknown[] = Array.isArray(schema.anyOf) ? schema.anyOf : [];
  const literals = options.map((o) => propertyOf(o, "const")).filter((v) => typeof v === "string");
  if (literals.length > 0 && literals.length === options.length) {
    return `must be one of ${literals.map((v) => JSON.stringify(v)).join(", ")}`;
  }
  return fallback;
}

export function invalidRequest(
  message: string,
  param: string | null = null,
  code: string | null = null,
): OpenAIError {
  return { error: { message, type: "invalid_request_error", param, code } };
}

export function serverError(message: string, code: string): OpenAIError {
  return { error: { message, type: "server_error", param: null, code } };
}

/** A finished answer that failed its schema's check `attempts` times (never returned as if it passed). */
export function invalidStructuredOutput(why: string, attempts: number): OpenAIError {
  return serverError(
    `the model's answer did not validate against the schema (${attempts === 1 ? "once" : `${attempts} attempts`}): ${why}`,
    "invalid_structured_output",
  );
}

export function usageOf(counts: {
  promptTokens: number;
  cachedTokens: number;
  completionTokens: number;
}): Usage {
  return {
    prompt_tokens: counts.promptTokens,
    completion_tokens: counts.completionTokens,
    total_tokens: counts.promptTokens + counts.completionTokens,
    prompt_tokens_details: { cached_tokens: counts.cachedTokens },
  };
}
