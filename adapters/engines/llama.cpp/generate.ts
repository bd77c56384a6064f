// One chat completion on one context sequence: OpenAI messages become node-llama-cpp chat history, the
// model's chat wrapper renders them, LlamaChat samples, and the counts come from the model's tokenizer.
import type { ChatHistoryItem, ChatWrapper, LlamaContextSequence, LlamaModel } from "node-llama-cpp";
import { LlamaChat } from "node-llama-cpp";
import {
  type ChatCompletionRequest,
  type FinishReason,
  invalidRequest,
  type Parsed,
} from "./openai-shapes.ts";

/** Sampling defaults for fields the request leaves out: those of llama.cpp's own server (llama-server). */
export const samplingDefaults = { temperature: 0.8, topP: 0.95, topK: 40, minP: 0.05 } as const;

export interface GenerationInput {
  /** Ends with the empty model turn that the generation fills. */
  history: ChatHistoryItem[];
  promptTokens: number;
  /** What the request asked for, cut to the room left in the sequence's context. */
  maxTokens: number;
  temperature: number;
  topP: number;
  seed: number | undefined;
  stop: string[];
  presencePenalty: number;
  frequencyPenalty: number;
}

export interface GenerationOutcome {
  text: string;
  finishReason: FinishReason;
  promptTokens: number;
  completionTokens: number;
  /** The signal ended it before the model did. */
  aborted: boolean;
}

/** What the request builder needs to know about the loaded model. */
export interface PromptRenderer {
  model: LlamaModel;
  chatWrapper: ChatWrapper;
  /** Tokens one sequence holds: prompt and completion together. */
  contextSize: number;
}

/** Turns a checked request into a generation, or a 400 (unsupported message, prompt longer than the context). */
export function buildGeneration(
  req: ChatCompletionRequest,
  renderer: PromptRenderer,
): Parsed<GenerationInput> {
  const history = toChatHistory(req.messages);
  if (!history.ok) return history;
  history.value.push({ type: "model", response: [] });
  const promptTokens = countPromptTokens(renderer, history.value);
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
  const stop = req.stop == null ? [] : typeof req.stop === "string" ? [req.stop] : req.stop;
  return {
    ok: true,
    value: {
      history: history.value,
      promptTokens,
      maxTokens: Math.min(asked ?? room, room),
      temperature: req.temperature ?? samplingDefaults.temperature,
      topP: req.top_p ?? samplingDefaults.topP,
      seed: req.seed ?? undefined,
      stop,
      presencePenalty: req.presence_penalty ?? 0,
      frequencyPenalty: req.frequency_penalty ?? 0,
    },
  };
}

export function toChatHistory(messages: ChatCompletionRequest["messages"]): Parsed<ChatHistoryItem[]> {
  const history: ChatHistoryItem[] = [];
  for (const [i, m] of messages.entries()) {
    let text: string;
    if (typeof m.content === "string") text = m.content;
    else if (m.content === null) text = "";
    else {
      const other = m.content.findIndex((part) => part.type !== "text");
      if (other >= 0) {
        const type = m.content[other]?.type;
        return {
          ok: false,
          error: invalidRequest(
            `content parts of type "${type}" are not supported by this model`,
            `messages.${i}.content`,
          ),
        };
      }
      text = m.content.map((part) => part.text ?? "").join("\n");
    }
    switch (m.role) {
      case "system":
      case "developer":
        history.push({ type: "system", text });
        break;
      case "user":
        history.push({ type: "user", text });
        break;
      case "assistant":
        history.push({ type: "model", response: [text] });
        break;
      case "tool":
        return {
          ok: false,
          error: invalidRequest("tool messages are not supported by this engine", `messages.${i}.role`),
        };
    }
  }
  return { ok: true, value: history };
}

/** The prompt exactly as the chat wrapper renders it (special tokens included), counted by the model's tokenizer. */
export function countPromptTokens(renderer: PromptRenderer, history: ChatHistoryItem[]): number {
  const { contextText } = renderer.chatWrapper.generateContextState({ chatHistory: history });
  return contextText.tokenize(renderer.model.tokenizer).length;
}

/**
 * Runs the generation on a sequence that holds nothing (the pool clears it between requests). Text is passed to
 * `onText` as the model produces it; an aborted signal stops it and resolves with what was produced so far.
 */
export async function generate(
  sequence: LlamaContextSequence,
  chatWrapper: ChatWrapper,
  input: GenerationInput,
  options: { signal: AbortSignal; onText?: (text: string) => void },
): Promise<GenerationOutcome> {
  const chat = new LlamaChat({ contextSequence: sequence, chatWrapper });
  const meterBefore = sequence.tokenMeter.getState();
  let streamed = "";
  try {
    const penalize = input.presencePenalty !== 0 || input.frequencyPenalty !== 0;
    const result = await chat.generateResponse(input.history, {
      signal: options.signal,
      stopOnAbortSignal: true,
      maxTokens: input.maxTokens,
      temperature: input.temperature,
      topP: input.topP,
      topK: samplingDefaults.topK,
      minP: samplingDefaults.minP,
      ...(input.seed === undefined ? {} : { seed: input.seed }),
      customStopTriggers: input.stop,
      // OpenAI's penalties and llama.cpp's are the same formula (logit -= count·frequency + presence), so
      // they pass through; llama.cpp's multiplicative repeat penalty stays off, as OpenAI has none.
      repeatPenalty: penalize
        ? { penalty: 1, presencePenalty: input.presencePenalty, frequencyPenalty: input.frequencyPenalty }
        : false,
      onTextChunk: (text) => {
        streamed += text;
        options.onText?.(text);
      },
    });
    const stopReason = result.metadata.stopReason;
    return {
      text: result.response,
      finishReason: stopReason === "maxTokens" ? "length" : "stop",
      promptTokens: input.promptTokens,
      completionTokens: Math.min(sequence.tokenMeter.diff(meterBefore).usedOutputTokens, input.maxTokens),
      aborted: stopReason === "abort",
    };
  } catch (error) {
    // Aborted before the first token: node-llama-cpp throws the signal's reason instead of returning.
    if (!options.signal.aborted) throw error;
    return {
      text: streamed,
      finishReason: "stop",
      promptTokens: input.promptTokens,
      completionTokens: sequence.tokenMeter.diff(meterBefore).usedOutputTokens,
      aborted: true,
    };
  } finally {
    chat.dispose();
  }
}
