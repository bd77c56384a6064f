// The word-vector embedding model (scripts/make-word-vector-gguf.ts) as llama.cpp serves it: built from the
// npm package into a temp dir (a copy of the cached build when there is one), loaded with node-llama-cpp,
// and checked to carry meaning (a paraphrase is closer than an unrelated text) and to compute exactly the
// SIF vectors its header describes.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { getLlama, type Llama, type LlamaEmbeddingContext, type LlamaModel } from "node-llama-cpp";
import {
  loadWinkEmbeddings,
  type SifVectors,
  sifVectors,
  type WordVectorGgufSummary,
  writeWordVectorGguf,
} from "#scripts/make-word-vector-gguf.ts";

let dir: string;
let summary: WordVectorGgufSummary;
let sif: SifVectors;
let llama: Llama;
let model: LlamaModel;
let context: LlamaEmbeddingContext;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "word-vectors-"));
  // Not given the loaded vectors, so that the build can come from the cache (see the script's header).
  summary = writeWordVectorGguf(join(dir, "glove.gguf"));
  sif = sifVectors(loadWinkEmbeddings()); // about 3 s: a 300 MB JSON file
  llama = await getLlama({ gpu: false, build: "never", maxThreads: 1 });
  model = await llama.loadModel({ modelPath: summary.path });
  context = await model.createEmbeddingContext({ contextSize: 512, threads: 1 });
}, 120_000); // building the file takes about 10 s on a free core

afterAll(async () => {
  await llama?.dispose();
  rmSync(dir, { recursive: true, force: true });
});

async function embed(text: string): Promise<number[]> {
  return [...(await context.getEmbeddingFor(text)).vector];
}

function cosine(a: readonly number[], b: readonly number[]): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] as number;
    const y = b[i] as number;
    dot += x * y;
    na += x * x;
    nb += y * y;
  }
  return dot / Math.sqrt(na * nb);
}

describe("the model file", () => {
  test("holds the package's words and 100 + 2 dimensions, and llama.cpp agrees", () => {
    expect(summary.words).toBeGreaterThan(300_000);
    expect(summary.embeddingLength).toBe(102);
    expect(model.embeddingVectorSize).toBe(102);
    expect(String(model.fileInfo.metadata.general.architecture)).toBe("bert");
  });

  test("tokenizes into whole lowercase words; accents are stripped; an unknown word is one [UNK]", () => {
    const pieces = (text: string) => model.tokenize(text).map((t) => model.detokenize([t]).trim());
    expect(pieces("Copy the FILES, then rename them")).toEqual([
      "copy",
      "the",
      "files",
      ",",
      "then",
      "rename",
      "them",
    ]);
    expect(pieces("café")).toEqual(["cafe"]);
    expect(model.tokenize("zzqxvj")).toEqual([1 as never]);
  });
});

describe("embeddings", () => {
  // Each query is closer to its paraphrase than to an unrelated text; several share no content word.
  const triples: [query: string, paraphrase: string, unrelated: string][] = [
    [
      "how to copy files between directories",
      "copy a file to another folder",
      "the price of bananas in the market",
    ],
    [
      "the physician treated the patient",
      "a doctor cured the sick man",
      "shares fell after the earnings report",
    ],
    ["cheap flights to paris", "low cost airfare to france", "repairing a flat bicycle tire"],
    [
      "the weather will be rainy tomorrow",
      "expect showers and clouds next day",
      "the database server crashed",
    ],
    [
      "my car engine will not start",
      "the vehicle motor fails to run",
      "she painted a portrait of her mother",
    ],
  ];

  for (const [query, paraphrase, unrelated] of triples) {
    test(`"${query}" is closer to "${paraphrase}" than to "${unrelated}"`, async () => {
      // One at a time: an embedding context evaluates one text at once.
      const q = await embed(query);
      const p = await embed(paraphrase);
      const u = await embed(unrelated);
      expect(cosine(q, p)).toBeGreaterThan(cosine(q, u) + 0.2);
    });
  }

  test("are the mean of the words' SIF vectors, as the script's header says", async () => {
    const text = "the old mill by the river became the museum of textile workers";
    const index = new Map(sif.words.map((w, i) => [w, i]));
    const expected = new Array<number>(100).fill(0);
    for (const word of text.split(" ")) {
      expect(index.has(word)).toBe(true);
      const u = sif.vectors[index.get(word) as number] as Float64Array;
      for (let d = 0; d < 100; d++) expected[d] = (expected[d] as number) + (u[d] as number);
    }
    const actual = await embed(text);
    expect(actual.slice(100)).toEqual([0, 0]);
    expect(cosine(actual.slice(0, 100), expected)).toBeGreaterThan(0.9999);
  });

  test("a text of unknown words still gets a defined vector", async () => {
    const v = await embed("zzqxvj qqxzkw");
    expect(v.every(Number.isFinite)).toBe(true);
    expect(v.some((x) => x !== 0)).toBe(true);
  });
});
