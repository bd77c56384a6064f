// OpenAI's logprobs from llama.cpp's sampler: evaluate-tap.ts hands each sampled token with the distribution it was
// drawn from (after temperature, top_p, grammar and logit_bias); the probabilities are the model's numbers, not
// estimates. This file turns them into OpenAI's shape.

import type { LlamaModel, Token } from "node-llama-cpp";
import type { ContentLogprob, TokenLogprob } from "#contracts/openai/chat.ts";
import { propertyOf } from "#core/error-chain.ts";
import type { ByteTokens } from "./utf8-guard.ts";

/** One sampled token with the alternatives asked for, in OpenAI's shape. */
export type SampledToken = ContentLogprob & WorkerLogprob;
/** This worker always knows a token's bytes (OpenAI allows null). */
type WorkerLogprob = TokenLogprob & { bytes: number[] };

/** A sampled token and its `top` most likely alternatives, in OpenAI's shape. */
export function sampledToken(
  describe: TokenDescriber,
  token: Token,
  probabilities: Map<Token, number>,
  topLogprobs: number,
): SampledToken {
  return {
    ...describe.logprob(token, probabilities.get(token) ?? 0),
    top_logprobs: top(probabilities, topLogprobs).map(([t, p]) => describe.logprob(t, p)),
  };
}

/** The map comes sorted by probability, highest first; tokens the grammar or a -100 bias banned (0) are left out. */
function top(probabilities: Map<Token, number>, count: number): [Token, number][] {
  const out: [Token, number][] = [];
  if (count === 0) return out;
  for (const entry of probabilities) {
    if (entry[1] <= 0) break;
    out.push(entry);
    if (out.length === count) break;
  }
  return out;
}

/** Token → its text and UTF-8 bytes, as OpenAI reports them (`bytes` is how a client rebuilds split characters). */
export class TokenDescriber implements ByteTokens {
  private readonly pieces: readonly string[];
  private readonly encoder = new TextEncoder();
  /** Byte-fallback tokens (`<0xE2>`): byte → token id, and back. */
  private readonly byteTokens = new Map<number, Token>();
  private readonly tokenBytes = new Map<Token, number>();

  constructor(private readonly model: LlamaModel) {
    const tokenizer = propertyOf(model.fileInfo.metadata, "tokenizer");
    const tokens = propertyOf(propertyOf(tokenizer, "ggml"), "tokens");
    this.pieces = Array.isArray(tokens) ? tokens.map(String) : [];
    for (const [id, piece] of this.pieces.entries()) {
      const byte = /^<0x([0-9A-Fa-f]{2})>$/.exec(piece)?.[1];
      if (byte === undefined) continue;
      this.byteTokens.set(Number.parseInt(byte, 16), id as Token);
      this.tokenBytes.set(id as Token, Number.parseInt(byte, 16));
    }
  }

  tokenOf(byte: number): Token | undefined {
    return this.byteTokens.get(byte);
  }

  byteOf(token: Token): number | undefined {
    return this.tokenBytes.get(token);
  }

  /** Token ids run from 0 to this, exclusive (0 when the GGUF's vocabulary list is not at hand). */
  get vocabularySize(): number {
    return this.pieces.length;
  }

  logprob(token: Token, probability: number): WorkerLogprob {
    const text = this.model.detokenize([token], true);
    // A byte-fallback token (`<0xE2>`) holds one byte of a character split over several tokens: its text alone
    // is the replacement character, its byte is the truth.
    const byte = this.byteOf(token);
    return {
      token: text,
      // log(0) would be -Infinity, which JSON cannot carry; the smallest finite number says "never" as well.
      logprob: probability > 0 ? Math.log(probability) : -9999,
      bytes: byte === undefined ? [...this.encoder.encode(text)] : [byte],
    };
  }
}

/**
 * Sampled tokens wait here until LlamaChat releases their text (it holds text back while it could still be a
 * stop trigger); text is matched to tokens by UTF-8 bytes, since a character may span several tokens. Tokens
 * whose text never comes out (a stop trigger, the end token) are left over and dropped.
 */
export class LogprobQueue {
  private readonly waiting: SampledToken[] = [];
  private readonly encoder = new TextEncoder();

  add(token: SampledToken): void {
    this.waiting.push(token);
  }

  take(text: string): SampledToken[] {
    let bytes = this.encoder.encode(text).length;
    const out: SampledToken[] = [];
    while (bytes > 0) {
      const next = this.waiting.shift();
      if (!next) break;
      out.push(next);
      bytes -= next.bytes.length;
    }
    return out;
  }
}
