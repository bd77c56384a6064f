/**
 * Writes a tiny but real GGUF v3 file: a llama-architecture model with seeded random F32 weights, a
 * SentencePiece-style ("llama") vocabulary with byte fallback, and a ChatML chat template. It exists so that
 * tests and benchmarks can run the llama.cpp engine end to end without downloading a model.
 *
 *   bun scripts/make-tiny-gguf.ts <out.gguf> [--seed N] [--eog-bias X]
 *
 * The output is gibberish, by design, but printable: tokens that would print control characters or stray
 * UTF-8 bytes (byte-fallback tokens outside printable ASCII, except the newline) get a logit bias of -30, so
 * a terminal shows plain text. A grammar can still force them, since masking comes before sampling.
 * Two knobs make its behaviour predictable where tests need it:
 * - the weights come from a seeded generator, so the same options give the same bytes;
 * - `eogBias` adds a constant to the logits of the end-of-generation tokens (`</s>`, `<|im_end|>`). At 0 the
 *   model ends a reply by chance (about 1 token in 90 at temperature 1); a large negative value (-30) means it
 *   never stops before `max_tokens`; a large positive one (+30) means it stops at once.
 *
 * How the bias works: dimension 0 of every token embedding is a constant 1, and no layer writes to it (row 0 of
 * attn_output and ffn_down is zero), so after the final RMS norm that coordinate is always positive. Column 0 of
 * the output matrix is then a per-token bias: zero for every token but the end-of-generation ones.
 */

import { at } from "./checked.ts";
import {
  GGUF_ALIGNMENT,
  ggufCommandLine,
  type MetaValue,
  type Tensor,
  TOKEN_TYPE,
  writeGguf,
} from "./gguf-writer.ts";

export type TinyGgufOptions = {
  /** Seed of the weight generator. Default 42. */
  seed?: number;
  /** Hidden size. Default 64. */
  embeddingLength?: number;
  /** Transformer blocks. Default 2. */
  blockCount?: number;
  /** Attention heads. Default 4. */
  headCount?: number;
  /** Key/value heads (grouped-query attention when fewer than headCount). Default 2. */
  headCountKv?: number;
  /** Feed-forward hidden size. Default 128. */
  feedForwardLength?: number;
  /** Training context length written to the metadata. Default 4096: room for tool_choice "auto" with a few tools. */
  contextLength?: number;
  /** Logit offset of the end-of-generation tokens, see the file comment. Default 0. */
  eogBias?: number;
  /** `general.name`. Default "tiny-random-llama". */
  name?: string;
};

export type TinyGgufSummary = {
  path: string;
  bytes: number;
  vocabSize: number;
  tensorCount: number;
  tokens: { bos: number; eos: number; unk: number; imStart: number; imEnd: number };
};

/** ChatML, written the way most GGUF files carry it. */
export const CHATML_TEMPLATE =
  "{% for message in messages %}{{ '<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + '\\n' }}{% endfor %}" +
  "{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}";

const SPACE = "\u2581"; // SentencePiece's "▁", which stands for a space

type Vocab = {
  tokens: string[];
  scores: number[];
  types: number[];
  ids: TinyGgufSummary["tokens"];
};

/** A few frequent English pieces so that tokenization merges something, as a real SentencePiece vocab does. */
const MERGED_PIECES = ["th", "he", "in", "er", "an", "re", "on", "at", "en", "nd", "ou", "ll"].flatMap(
  (p) => [p, SPACE + p[0]],
);
const WORD_PIECES = [`${SPACE}the`, `${SPACE}and`, `${SPACE}hello`, `${SPACE}world`, "ing", "ion"];

function buildVocab(): Vocab {
  const tokens: string[] = [];
  const scores: number[] = [];
  const types: number[] = [];
  const add = (text: string, type: number, score = 0): number => {
    const existing = tokens.indexOf(text);
    if (existing >= 0) return existing;
    tokens.push(text);
    scores.push(score);
    types.push(type);
    return tokens.length - 1;
  };
  const unk = add("<unk>", TOKEN_TYPE.UNKNOWN);
  const bos = add("<s>", TOKEN_TYPE.CONTROL);
  const eos = add("</s>", TOKEN_TYPE.CONTROL);
  const imStart = add("<|im_start|>", TOKEN_TYPE.CONTROL);
  const imEnd = add("<|im_end|>", TOKEN_TYPE.CONTROL);
  // Byte fallback: any byte the pieces below do not cover (newlines, UTF-8) is spelled with these.
  for (let b = 0; b < 256; b++) add(`<0x${b.toString(16).toUpperCase().padStart(2, "0")}>`, TOKEN_TYPE.BYTE);
  // Single characters: the space marker and printable ASCII (the space itself is always written as "▁").
  add(SPACE, TOKEN_TYPE.NORMAL, -1000);
  for (let c = 33; c < 127; c++) add(String.fromCharCode(c), TOKEN_TYPE.NORMAL, -1000);
  // Longer pieces: SentencePiece merges the adjacent pair whose concatenation has the highest score, so a
  // piece is reachable only through pieces that build it up two at a time. Every prefix of a word piece is
  // therefore a piece too, scored above the pairs so that a word grows from its left end ("▁h", "▁he", ...).
  MERGED_PIECES.forEach((piece, i) => {
    add(piece, TOKEN_TYPE.NORMAL, -(i + 1));
  });
  for (const word of WORD_PIECES) {
    for (let end = 2; end <= word.length; end++) add(word.slice(0, end), TOKEN_TYPE.NORMAL, 0);
  }
  return { tokens, scores, types, ids: { bos, eos, unk, imStart, imEnd } };
}

const UNPRINTABLE_BIAS = -30;

/** Byte-fallback tokens that print as anything but printable ASCII or a newline, and the control tokens. */
function unprintableTokens(vocab: Vocab): number[] {
  const ids: number[] = [];
  vocab.tokens.forEach((text, id) => {
    const byte = /^<0x([0-9A-F]{2})>$/.exec(text);
    if (byte) {
      const b = Number.parseInt(at(byte, 1), 16);
      if (b !== 0x0a && (b < 0x20 || b > 0x7e)) ids.push(id);
    } else if (id === vocab.ids.unk || id === vocab.ids.bos || id === vocab.ids.imStart) {
      ids.push(id);
    }
  });
  return ids;
}

/** mulberry32: small, fast, and the same in every runtime. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function normal(next: () => number): () => number {
  return () => {
    const u = Math.max(next(), 1e-12);
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * next());
  };
}

function buildTensors(o: Required<TinyGgufOptions>, vocab: Vocab): Tensor[] {
  const gauss = normal(rng(o.seed));
  const nEmbd = o.embeddingLength;
  const nVocab = vocab.tokens.length;
  const headDim = nEmbd / o.headCount;
  const nEmbdKv = headDim * o.headCountKv;
  // ne[0] is the contiguous dimension (the input size of a weight matrix), ne[1] the number of rows.
  const random = (name: string, ne: number[], std: number): Tensor => {
    const data = new Float32Array(ne.reduce((a, b) => a * b, 1));
    for (let i = 0; i < data.length; i++) data[i] = gauss() * std;
    return { name, ne, data };
  };
  const ones = (name: string, n: number): Tensor => ({ name, ne: [n], data: new Float32Array(n).fill(1) });
  const zeroRow0 = (t: Tensor): Tensor => {
    t.data.fill(0, 0, t.ne[0]);
    return t;
  };

  const tokenEmbd = random("token_embd.weight", [nEmbd, nVocab], 0.5);
  for (let t = 0; t < nVocab; t++) tokenEmbd.data[t * nEmbd] = 1; // the constant channel
  // Logit std ≈ 0.25·√nEmbd = 2: varied but not flat.
  const output = random("output.weight", [nEmbd, nVocab], 0.25);
  for (let t = 0; t < nVocab; t++) output.data[t * nEmbd] = 0;
  for (const t of [vocab.ids.eos, vocab.ids.imEnd]) output.data[t * nEmbd] = o.eogBias;
  for (const t of unprintableTokens(vocab)) output.data[t * nEmbd] = UNPRINTABLE_BIAS;

  const tensors: Tensor[] = [tokenEmbd];
  for (let b = 0; b < o.blockCount; b++) {
    const p = `blk.${b}.`;
    tensors.push(
      ones(`${p}attn_norm.weight`, nEmbd),
      random(`${p}attn_q.weight`, [nEmbd, nEmbd], 1 / Math.sqrt(nEmbd)),
      random(`${p}attn_k.weight`, [nEmbd, nEmbdKv], 1 / Math.sqrt(nEmbd)),
      random(`${p}attn_v.weight`, [nEmbd, nEmbdKv], 1 / Math.sqrt(nEmbd)),
      zeroRow0(random(`${p}attn_output.weight`, [nEmbd, nEmbd], 0.5 / Math.sqrt(nEmbd))),
      ones(`${p}ffn_norm.weight`, nEmbd),
      random(`${p}ffn_gate.weight`, [nEmbd, o.feedForwardLength], 1 / Math.sqrt(nEmbd)),
      random(`${p}ffn_up.weight`, [nEmbd, o.feedForwardLength], 1 / Math.sqrt(nEmbd)),
      zeroRow0(
        random(`${p}ffn_down.weight`, [o.feedForwardLength, nEmbd], 0.5 / Math.sqrt(o.feedForwardLength)),
      ),
    );
  }
  tensors.push(ones("output_norm.weight", nEmbd), output);
  return tensors;
}

function buildMetadata(o: Required<TinyGgufOptions>, vocab: Vocab): [string, MetaValue][] {
  const u32 = (value: number): MetaValue => ({ type: "u32", value });
  return [
    ["general.architecture", { type: "str", value: "llama" }],
    ["general.name", { type: "str", value: o.name }],
    ["general.alignment", u32(GGUF_ALIGNMENT)],
    ["general.file_type", u32(0)], // all F32
    ["llama.context_length", u32(o.contextLength)],
    ["llama.embedding_length", u32(o.embeddingLength)],
    ["llama.block_count", u32(o.blockCount)],
    ["llama.feed_forward_length", u32(o.feedForwardLength)],
    ["llama.attention.head_count", u32(o.headCount)],
    ["llama.attention.head_count_kv", u32(o.headCountKv)],
    ["llama.rope.dimension_count", u32(o.embeddingLength / o.headCount)],
    ["llama.rope.freq_base", { type: "f32", value: 10000 }],
    ["llama.attention.layer_norm_rms_epsilon", { type: "f32", value: 1e-5 }],
    ["llama.vocab_size", u32(vocab.tokens.length)],
    ["tokenizer.ggml.model", { type: "str", value: "llama" }],
    ["tokenizer.ggml.tokens", { type: "str[]", value: vocab.tokens }],
    ["tokenizer.ggml.scores", { type: "f32[]", value: vocab.scores }],
    ["tokenizer.ggml.token_type", { type: "i32[]", value: vocab.types }],
    ["tokenizer.ggml.bos_token_id", u32(vocab.ids.bos)],
    ["tokenizer.ggml.eos_token_id", u32(vocab.ids.eos)],
    ["tokenizer.ggml.eot_token_id", u32(vocab.ids.imEnd)],
    ["tokenizer.ggml.unknown_token_id", u32(vocab.ids.unk)],
    ["tokenizer.ggml.padding_token_id", u32(vocab.ids.eos)],
    ["tokenizer.ggml.add_bos_token", { type: "bool", value: true }],
    ["tokenizer.ggml.add_eos_token", { type: "bool", value: false }],
    // Without this, llama.cpp inserts a space after every special token ("<|im_start|>▁user").
    ["tokenizer.ggml.add_space_prefix", { type: "bool", value: false }],
    ["tokenizer.chat_template", { type: "str", value: CHATML_TEMPLATE }],
  ];
}

export function writeTinyGguf(path: string, opts: TinyGgufOptions = {}): TinyGgufSummary {
  const o: Required<TinyGgufOptions> = {
    seed: 42,
    embeddingLength: 64,
    blockCount: 2,
    headCount: 4,
    headCountKv: 2,
    feedForwardLength: 128,
    contextLength: 4096,
    eogBias: 0,
    name: "tiny-random-llama",
    ...opts,
  };
  if (o.embeddingLength % o.headCount !== 0 || o.headCount % o.headCountKv !== 0) {
    throw new Error("embeddingLength must divide by headCount, and headCount by headCountKv");
  }
  const vocab = buildVocab();
  const tensors = buildTensors(o, vocab);
  const bytes = writeGguf(path, buildMetadata(o, vocab), tensors);
  return {
    path,
    bytes: bytes.length,
    vocabSize: vocab.tokens.length,
    tensorCount: tensors.length,
    tokens: vocab.ids,
  };
}

if (import.meta.main) {
  const { out, options } = ggufCommandLine(
    "usage: bun scripts/make-tiny-gguf.ts <out.gguf> [--seed N] [--eog-bias X]",
    { seed: "--seed", eogBias: "--eog-bias" },
    { test: Number.isFinite, what: "a number" },
  );
  console.log(JSON.stringify(writeTinyGguf(out, options)));
}
