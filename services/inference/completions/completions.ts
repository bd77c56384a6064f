// POST /v1/completions: a translator around the chat core (../chat.ts). Every engine serves only
// /v1/chat/completions (CONTRACTS), so the prompt goes to the model as one user message and the
// assistant's reply comes back as `choices[0].text`: the chat template applies, so the text answers
// the prompt rather than continuing it token for token. The lifecycle (key, limits, quota,
// guardrails, templates, retrieval, logs, usage) is the core's.
import type { InferenceAnswer } from "#contracts/internal/inference-answer.ts";
import type {
  ChatCompletionRequest as ChatRequestBody,
  ReceivedChunk,
  ReceivedCompletion,
} from "#contracts/openai/chat.ts";
import type { Completion, CompletionRequest } from "#contracts/openai/completions.ts";
import { invalid } from "#core/errors.ts";
import { type ChatInput, chatCompletion } from "../chat.ts";
import { type StreamTranslator, sseData, translateChatStream } from "../chat-stream.ts";

export type TranslatedInput<Body> = Omit<ChatInput, "body" | "resolved" | "inputParam" | "operation"> & {
  body: Body;
};

export type CompletionResult = InferenceAnswer<Completion>;

/** OpenAI's default for this endpoint (chat has none). */
const defaultMaxTokens = 16;

export async function createCompletion(
  runtime: Parameters<typeof chatCompletion>[0],
  input: TranslatedInput<CompletionRequest>,
): Promise<CompletionResult> {
  const { body } = input;
  const result = await chatCompletion(runtime, {
    ...input,
    body: toChat(body),
    inputParam: "prompt",
    operation: "text_completion",
  });
  if (result.kind === "stream") {
    return {
      kind: "stream",
      stream: translateChatStream(result.stream, completionChunks(body.model)),
      cache: result.cache,
    };
  }
  return { kind: "json", body: fromChat(result.body, body.model), cache: result.cache };
}

function toChat(body: CompletionRequest): ChatRequestBody {
  if (body.suffix != null)
    throw invalid("suffix", "is not supported (the model's server has no fill-in-the-middle)");
  if (body.echo === true) throw invalid("echo", "is not supported");
  if (body.logprobs != null) throw invalid("logprobs", "is not supported on this endpoint");
  const prompts = typeof body.prompt === "string" ? [body.prompt] : body.prompt;
  if (prompts.length !== 1) {
    throw invalid("prompt", "must be a string or an array of exactly one string (one prompt per request)");
  }
  const chat: ChatRequestBody = {
    model: body.model,
    messages: [{ role: "user", content: prompts[0] as string }],
    max_tokens: body.max_tokens ?? defaultMaxTokens,
    stream: body.stream === true,
  };
  if (body.stream === true)
    chat.stream_options = { include_usage: body.stream_options?.include_usage === true };
  const { temperature, top_p, stop, seed, presence_penalty, frequency_penalty, user } = body;
  const passed = { temperature, top_p, stop, seed, presence_penalty, frequency_penalty, user };
  for (const [field, value] of Object.entries(passed)) if (value != null) chat[field] = value;
  return chat;
}

function fromChat(answer: ReceivedCompletion, model: string): Completion {
  const choice = answer.choices?.[0];
  return {
    id: completionId(answer.id),
    object: "text_completion",
    created: answer.created ?? Math.floor(Date.now() / 1000),
    model,
    choices: [
      {
        index: 0,
        text: choice?.message?.content ?? "",
        logprobs: null,
        finish_reason: choice?.finish_reason ?? "stop",
      },
    ],
    usage: answer.usage,
  };
}

const completionId = (chatId: string | undefined) =>
  chatId ? `cmpl-${chatId.replace(/^chatcmpl-/, "")}` : `cmpl-${crypto.randomUUID().replaceAll("-", "")}`;

/** chat.completion.chunk → text_completion chunk: the text of each delta, the finish reason, the usage. */
function completionChunks(model: string): StreamTranslator {
  return {
    start: () => "",
    chunk(chunk: ReceivedChunk) {
      const choice = chunk.choices?.[0];
      const text = choice?.delta?.content ?? "";
      const finish = choice?.finish_reason ?? null;
      if (!choice && !chunk.usage) return "";
      if (choice && text === "" && finish === null) return "";
      return sseData({
        id: completionId(chunk.id),
        object: "text_completion",
        created: chunk.created ?? Math.floor(Date.now() / 1000),
        model,
        choices: choice ? [{ index: 0, text, logprobs: null, finish_reason: finish }] : [],
        ...(chunk.usage ? { usage: chunk.usage } : {}),
      });
    },
    error: (error) => sseData({ error }),
    end: async () => "data: [DONE]\n\n",
  };
}
