// Retrieval over a real corpus on this machine: the Debian manual pages of /usr/share/man/man1
// (written by the packages' authors, not by us), uploaded through the API into one collection, then
// questions whose answer document is known: each sampled page's NAME line ("grep - print lines that
// match patterns") asked without the command's name ("print lines that match patterns"); the answer is
// that page. Reports recall@5, indexing throughput and query latency on the configured database:
// embedded PGlite by default, PostgreSQL with TEST_DATABASE_URL.
//
// With --embedding-model (a GGUF embedding model, e.g. the one scripts/make-word-vector-gguf.ts
// builds), a llama.cpp worker serves it as the rag policy's embedding deployment: every passage is
// embedded through it (embedding throughput), and each question is also answered by the vector
// ranking alone and by both rankings fused (recall@5 and latency of each, as the gateway runs them).
//
//   bun run bench retrieval [--documents 1500] [--questions 150] [--embedding-model model.gguf]
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { gunzipSync } from "node:zlib";
import { Type as T } from "@sinclair/typebox";
import { embedTexts } from "#adapters/upstream/embed.ts";
import { rowsOf } from "#db/migrate.ts";
import { at, checked } from "#scripts/checked.ts";
import { embedderFor, embedMissingPassages } from "#services/knowledge-base/embedding-index.ts";
import { locateEmbeddingDeployment, retrieve } from "#services/knowledge-base/retrieve.ts";
import { fullTextSearch, type Passage } from "#services/knowledge-base/search.ts";
import { startLlamaWorker, type TinyWorker } from "#tests/fakes/support/tiny-worker.ts";
import { insertDeployment } from "#tests/management/support.ts";
import { call, gatewayHandler, loginAsAdmin, startTestApp } from "#tests/support/app.ts";
import { usingPostgres } from "#tests/support/database.ts";

const { values } = parseArgs({
  options: {
    documents: { type: "string", default: "1500" },
    questions: { type: "string", default: "150" },
    dir: { type: "string", default: "/usr/share/man/man1" },
    "embedding-model": { type: "string" },
    threads: { type: "string", default: "2" },
  },
});
const wantedDocuments = Number(values.documents);
const wantedQuestions = Number(values.questions);

/** Roff to Markdown-ish text: sections become headings, macros and font escapes go. */
function roffToText(roff: string): string {
  const out: string[] = [];
  for (const raw of roff.split("\n")) {
    const line = raw
      .replace(/\\f(\[[^\]]*\]|\(..|.)/g, "")
      .replace(/\\\(..|\\\*\(..|\\\*.|\\[&|^%]/g, "")
      .replace(/\\-/g, "-")
      .replace(/\\e/g, "\\")
      .replace(/\\ /g, " ");
    const macro = /^[.'](\w+)\s*(.*)$/.exec(line);
    if (!macro) {
      if (!line.startsWith(".") && !line.startsWith("'")) out.push(line);
      continue;
    }
    const [, name, args = ""] = macro;
    const text = args.replace(/"/g, "");
    if (name === "SH") out.push("", `## ${text}`, "");
    else if (name === "SS") out.push("", `### ${text}`, "");
    else if (["B", "I", "BR", "IR", "RB", "RI", "BI", "IB", "TP", "IP", "Nm", "Nd"].includes(name ?? ""))
      out.push(text);
  }
  return out.join("\n");
}

/** The NAME line's description: "grep, egrep \- print lines..." → "print lines...". */
function descriptionOf(roff: string): string | undefined {
  const match = /^\.SH\s+"?NAME"?\s*\n([\s\S]*?)\n\.(SH|SS)/m.exec(roff);
  const line = match?.[1]
    ?.split("\n")
    .filter((l) => !l.startsWith("."))
    .join(" ");
  const description = line
    ?.split(/\s\\?-\s/)[1]
    ?.replace(/\\f.|\\-/g, "")
    .trim();
  return description && description.split(/\s+/).length >= 4 ? description : undefined;
}

interface Page {
  filename: string;
  text: string;
  description: string | undefined;
}

function loadCorpus(dir: string, count: number): Page[] {
  const names = readdirSync(dir)
    .filter((f) => f.endsWith(".gz"))
    .sort();
  const pages: Page[] = [];
  // Every k-th page, so the sample spans the whole alphabet (and many packages).
  const step = Math.max(1, Math.floor(names.length / (count * 1.5)));
  for (let i = 0; i < names.length && pages.length < count; i += step) {
    const name = at(names, i);
    const roff = gunzipSync(readFileSync(join(dir, name))).toString("utf8");
    if (roff.startsWith(".so ") || roff.length < 800) continue; // a redirect or a stub
    const text = roffToText(roff).trim();
    if (text.length < 400) continue;
    pages.push({ filename: name.replace(/\.gz$/, ".md"), text, description: descriptionOf(roff) });
  }
  return pages;
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;

const pages = loadCorpus(values.dir, wantedDocuments);
const seen = new Map<string, number>();
for (const p of pages) if (p.description) seen.set(p.description, (seen.get(p.description) ?? 0) + 1);
// Only descriptions that name one page: "a perl module" answers many.
const askable = pages.filter(
  (p): p is Page & { description: string } => !!p.description && seen.get(p.description) === 1,
);
const questions = askable
  .filter((_, i) => i % Math.max(1, Math.floor(askable.length / wantedQuestions)) === 0)
  .slice(0, wantedQuestions);

const t = await startTestApp();
const { handle } = await gatewayHandler(t.app, "filtration");
const session = await loginAsAdmin(handle);
const { id: collection } = checked(
  T.Object({ id: T.String() }),
  (
    await call(handle, "POST", "/management/knowledge-base/collections", {
      token: session.access_token,
      body: { name: "man pages" },
    })
  ).body,
);

const started = performance.now();
let chunks = 0;
for (let i = 0; i < pages.length; i += 20) {
  const form = new FormData();
  form.append("collection_id", collection);
  for (const p of pages.slice(i, i + 20))
    form.append("files", new File([p.text], p.filename, { type: "text/markdown" }));
  const res = await handle(
    new Request("http://localhost/management/knowledge-base/upload", {
      method: "POST",
      headers: { authorization: `Bearer ${session.access_token}` },
      body: form,
    }),
  );
  if (res.status !== 201) throw new Error(`upload: ${res.status} ${await res.text()}`);
}
const indexSeconds = (performance.now() - started) / 1000;
const counted = await t.app.db.execute("select count(*)::int as n from knowledge_chunks");
chunks = Number(rowsOf<{ n: number }>(counted)[0]?.n);

/** The question as written, or reworded: its first word dropped and the rest in reverse order. */
const variants: Record<string, (d: string) => string> = {
  verbatim: (d) => d,
  reworded: (d) => d.split(" ").slice(1).reverse().join(" "),
};
const orgId = session.user.org_id;
const options = { collectionIds: [collection], topK: 5, minScore: 0 };

/** Each way of searching: the passages it finds for a question. */
const methods: Record<string, (question: string) => Promise<Passage[]>> = {
  "full text": (question) => fullTextSearch(t.app.db, orgId, question, options),
};

let worker: TinyWorker | undefined;
let embedding: { seconds: number; passages: number; engine: string; dims: number } | undefined;
const modelPath = values["embedding-model"];
if (modelPath) {
  worker = await startLlamaWorker(modelPath, "embedder", { threads: Number(values.threads) });
  const running = worker;
  process.on("exit", () => void running.stop());
  const { id: deploymentId } = await insertDeployment(t.app.db, orgId, {
    name: "embedder",
    replicas: [{ state: "READY", endpoint: `${worker.url}/v1` }],
  });
  const located = await locateEmbeddingDeployment(t.app.db, orgId, "embedder");
  if (!located.ok) throw new Error(located.reason);
  const t0 = performance.now();
  const passages = await embedMissingPassages(
    t.app.db,
    deploymentId,
    [collection],
    embedderFor(located.target, t.app.knowledge.balancer),
  );
  const [probe] = await embedTexts({
    endpoints: located.target.endpoints,
    model: "embedder",
    texts: ["probe"],
    timeoutMs: 10_000,
  });
  embedding = {
    seconds: (performance.now() - t0) / 1000,
    passages,
    engine: await t.app.knowledge.vectors.engine(),
    dims: probe?.length ?? 0,
  };
  methods.vector = async (question) => {
    const [query] = await embedTexts({
      endpoints: located.target.endpoints,
      model: "embedder",
      texts: [question],
      timeoutMs: 10_000,
    });
    if (!query) throw new Error("the embedder answered no vector");
    return t.app.knowledge.vectors.search({
      deploymentId,
      collectionIds: [collection],
      query,
      limit: 5,
    });
  };
  methods.fused = async (question) =>
    (await retrieve(t.app, orgId, question, { ...options, embeddingDeployment: "embedder" })).passages;
}

const results: Record<string, { recall5: number; recall1: number; p50: number; p99: number }> = {};
const misses: string[] = [];
for (const [method, search] of Object.entries(methods)) {
  for (const [variant, reword] of Object.entries(variants)) {
    const latencies: number[] = [];
    let hits = 0;
    let firstHits = 0;
    for (const q of questions) {
      const t0 = performance.now();
      const found = await search(reword(q.description));
      latencies.push(performance.now() - t0);
      const documents = [...new Set(found.map((p) => p.documentName))];
      if (documents.includes(q.filename)) hits++;
      else if (misses.length < 5 && method === "full text")
        misses.push(
          `${variant} "${reword(q.description)}" (${q.filename}) → ${documents.slice(0, 3).join(", ")}`,
        );
      if (found[0]?.documentName === q.filename) firstHits++;
    }
    latencies.sort((a, b) => a - b);
    results[`${variant}, ${method}`] = {
      recall5: hits / questions.length,
      recall1: firstHits / questions.length,
      p50: percentile(latencies, 50),
      p99: percentile(latencies, 99),
    };
  }
}

console.log(`database: ${usingPostgres ? "PostgreSQL (TEST_DATABASE_URL)" : "embedded PGlite"}`);
console.log(`corpus: ${pages.length} manual pages of ${values.dir}, ${chunks} chunks`);
console.log(`questions: ${questions.length} (NAME-line descriptions naming one page)`);
console.log("");
console.log(
  `indexing: ${(pages.length / indexSeconds).toFixed(0)} documents/s (${indexSeconds.toFixed(1)} s through the upload API)`,
);
if (embedding)
  console.log(
    `embedding: ${embedding.passages} passages in ${embedding.seconds.toFixed(1)} s (${(embedding.passages / embedding.seconds).toFixed(0)} passages/s), ${embedding.dims} dimensions, vector search by ${embedding.engine}`,
  );
console.log("");
console.log("| questions, ranking | recall@5 | recall@1 | query p50 | query p99 |");
console.log("|---|---:|---:|---:|---:|");
for (const [variant, r] of Object.entries(results))
  console.log(
    `| ${variant} | ${r.recall5.toFixed(3)} | ${r.recall1.toFixed(3)} | ${r.p50.toFixed(1)} ms | ${r.p99.toFixed(1)} ms |`,
  );
if (misses.length) console.log(`\nsome misses:\n${misses.map((m) => `- ${m}`).join("\n")}`);
await worker?.stop();
await t.close();
process.exit(0);
