// The GenAI span attributes of a chat completion (OpenTelemetry semantic conventions). Prompts and
// answers are added only when the operator opted in (OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT).

import type { Attributes } from "@opentelemetry/api";
import {
  ATTR_GEN_AI_INPUT_MESSAGES,
  ATTR_GEN_AI_OUTPUT_MESSAGES,
  ATTR_GEN_AI_REQUEST_MAX_TOKENS,
  ATTR_GEN_AI_REQUEST_TEMPERATURE,
  ATTR_GEN_AI_REQUEST_TOP_P,
  ATTR_GEN_AI_RESPONSE_FINISH_REASONS,
  ATTR_GEN_AI_RESPONSE_ID,
} from "@opentelemetry/semantic-conventions/incubating";
import type { RelayOutcome } from "#adapters/upstream/sse-relay.ts";
import type { ChatCompletionRequest as ChatRequestBody } from "#contracts/openai/chat.ts";
import type { InferenceRuntime } from "./runtime.ts";

const numberOr = (value: unknown) => (typeof value === "number" ? value : undefined);

export function requestAttributes(runtime: InferenceRuntime, body: ChatRequestBody): Attributes {
  const attributes: Attributes = {
    [ATTR_GEN_AI_REQUEST_MAX_TOKENS]: numberOr(body.max_tokens ?? body.max_completion_tokens),
    [ATTR_GEN_AI_REQUEST_TEMPERATURE]: numberOr(body.temperature),
    [ATTR_GEN_AI_REQUEST_TOP_P]: numberOr(body.top_p),
  };
  if (runtime.tracing?.captureContent) attributes[ATTR_GEN_AI_INPUT_MESSAGES] = JSON.stringify(body.messages);
  return attributes;
}

/** A streamed answer, once it ended. */
export function responseAttributes(runtime: InferenceRuntime, outcome: RelayOutcome): Attributes {
  const attributes: Attributes = {
    [ATTR_GEN_AI_RESPONSE_FINISH_REASONS]: outcome.finishReason ? [outcome.finishReason] : [],
  };
  if (runtime.tracing?.captureContent)
    attributes[ATTR_GEN_AI_OUTPUT_MESSAGES] = JSON.stringify([
      { role: "assistant", content: outcome.content },
    ]);
  return attributes;
}

/** What the span reads of a chat.completion. */
export interface AnsweredChoices {
  id?: unknown;
  choices?: { message?: unknown; finish_reason?: string | null }[] | undefined;
}

export function answerAttributes(runtime: InferenceRuntime, answer: AnsweredChoices): Attributes {
  const choices = answer.choices ?? [];
  const attributes: Attributes = {
    [ATTR_GEN_AI_RESPONSE_ID]: typeof answer.id === "string" ? answer.id : undefined,
    [ATTR_GEN_AI_RESPONSE_FINISH_REASONS]: choices.map((c) => c.finish_reason ?? "").filter(Boolean),
  };
  if (runtime.tracing?.captureContent)
    attributes[ATTR_GEN_AI_OUTPUT_MESSAGES] = JSON.stringify(choices.map((c) => c.message));
  return attributes;
}
