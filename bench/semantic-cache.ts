// `bun run bench semantic-cache --pairs <file> --embeddings <base URL …/v1> --model <name>`: how often
// the semantic response cache (services/inference/response-cache/) would serve one question's answer
// to another, on labelled pairs of questions: the hit rate on paraphrases and the wrong-hit rate on
// non-paraphrases, at each threshold, and the lowest threshold that keeps wrong hits under 1 %.
//
// The pairs file: TSV or CSV with a header naming two text columns and a label column, as the public
// sets ship them: Quora Question Pairs (question1, question2, is_duplicate), PAWS (sentence1,
// sentence2, label), MRPC (#1 String, #2 String, Quality). The embeddings: any OpenAI-compatible
// /v1/embeddings, such as a deployment of this platform, with the model the cache policy would name.
// Neither ships with the repository (bench/semantic-cache.md says what was searched and why).
import { embedTexts } from "#adapters/upstream/embed.ts";
import { at } from "#scripts/checked.ts";

interface Pair {
  a: string;
  b: string;
  paraphrase: boolean;
}

const args = process.argv.slice(2);
const option = (name: string) => {
  const at = args.indexOf(`--${name}`);
  return at >= 0 ? args[at + 1] : undefined;
};
const pairsPath = option("pairs");
const endpoint = option("embeddings");
const model = option("model");
const limit = Number(option("limit") ?? 5000);

if (!pairsPath || !endpoint || !model) {
  console.log(
    "blocked: the benchmark needs a labelled set of question pairs (--pairs) and a real embedding model " +
      "(--embeddings <base URL> --model <name>). Neither is reachable from this project's machines (only the " +
      "npm registry and Debian packages are; see bench/semantic-cache.md), and the test models' random " +
      "weights give embeddings that mean nothing. No figure is printed rather than a false one.",
  );
  process.exit(2);
}

function splitLine(line: string, separator: string): string[] {
  if (separator === "\t") return line.split("\t");
  // CSV with quoted fields ("" inside quotes is one quote).
  const fields: string[] = [];
  let field = "";
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const ch = line.charAt(i);
    if (quoted && ch === '"' && line[i + 1] === '"') {
      field += '"';
      i++;
    } else if (ch === '"') quoted = !quoted;
    else if (ch === "," && !quoted) {
      fields.push(field);
      field = "";
    } else field += ch;
  }
  fields.push(field);
  return fields;
}

function readPairs(text: string): Pair[] {
  const lines = text.split(/\r?\n/).filter((l) => l.trim() !== "");
  const header = lines.shift() ?? "";
  const separator = header.includes("\t") ? "\t" : ",";
  const columns = splitLine(header, separator).map((c) => c.trim().toLowerCase());
  const find = (...names: string[]) => columns.findIndex((c) => names.includes(c));
  const a = find("question1", "sentence1", "#1 string", "text1");
  const b = find("question2", "sentence2", "#2 string", "text2");
  const label = find("is_duplicate", "label", "quality");
  if (a < 0 || b < 0 || label < 0) throw new Error(`no question and label columns in: ${header}`);
  return lines
    .map((line) => splitLine(line, separator))
    .flatMap((f) => {
      const [textA, textB] = [f[a], f[b]];
      return textA && textB && (f[label] === "0" || f[label] === "1")
        ? [{ a: textA, b: textB, paraphrase: f[label] === "1" }]
        : [];
    })
    .slice(0, limit);
}

const pairs = readPairs(await Bun.file(pairsPath).text());
const similarities: { similarity: number; paraphrase: boolean }[] = [];
const batch = 64;
for (let start = 0; start < pairs.length; start += batch) {
  const slice = pairs.slice(start, start + batch);
  const vectors = await embedTexts({
    endpoints: [endpoint],
    model,
    texts: slice.flatMap((p) => [p.a, p.b]),
    timeoutMs: 120_000,
  });
  slice.forEach((pair, i) => {
    const [x, y] = [at(vectors, 2 * i), at(vectors, 2 * i + 1)];
    let dot = 0;
    for (const [k, xk] of x.entries()) dot += xk * at(y, k);
    similarities.push({ similarity: dot, paraphrase: pair.paraphrase });
  });
}

const positives = similarities.filter((s) => s.paraphrase).length;
const negatives = similarities.length - positives;
console.log(`${similarities.length} pairs (${positives} paraphrases, ${negatives} not), model ${model}`);
console.log("threshold  hit rate (paraphrases)  wrong-hit rate (non-paraphrases)  wrong share of hits");
let chosen: number | undefined;
for (let t = 0.8; t <= 0.995; t += 0.01) {
  const hits = similarities.filter((s) => s.similarity >= t);
  const right = hits.filter((s) => s.paraphrase).length;
  const wrong = hits.length - right;
  const wrongRate = negatives ? wrong / negatives : 0;
  if (chosen === undefined && wrongRate < 0.01) chosen = t;
  console.log(
    `${t.toFixed(2)}       ${((100 * right) / Math.max(1, positives)).toFixed(1).padStart(5)} %` +
      `                 ${(100 * wrongRate).toFixed(2).padStart(6)} %` +
      `                         ${((100 * wrong) / Math.max(1, hits.length)).toFixed(2).padStart(6)} %`,
  );
}
console.log(
  chosen === undefined
    ? "no threshold up to 0.99 keeps wrong hits under 1 %"
    : `lowest threshold with wrong hits under 1 %: ${chosen.toFixed(2)}`,
);
