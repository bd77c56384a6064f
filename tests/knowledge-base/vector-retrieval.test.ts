// Vector retrieval with a real embedding engine: a llama.cpp worker of the tiny generated model
// serves /v1/embeddings as the `rag` policy's embedding deployment. Its weights are random, so the
// test asks what holds for any model: a passage's own text is its nearest neighbour. Naming the
// deployment in the policy embeds the collection; questions are answered from both rankings fused
// ("hybrid" in the inference log); an embedding deployment that is missing or not RUNNING leaves
// full text alone, the request succeeds and the log says why.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { and, count, eq } from "drizzle-orm";
import { embedTexts } from "#adapters/upstream/embed.ts";
import { inferenceLogs, knowledgeChunkEmbeddings, knowledgeChunks } from "#db/schema/index.ts";
import { EmbeddingScheduler } from "#services/knowledge-base/embedding-index.ts";
import { startTinyWorker, type TinyWorker } from "../fakes/support/tiny-worker.ts";
import { chat, type GatewayTest, setPolicy, startGatewayTest } from "../inference/support.ts";
import { insertDeployment } from "../management/support.ts";
import { eventually } from "../orchestration/support.ts";
import { call } from "../support/app.ts";
import { usingPostgres } from "../support/database.ts";
import { createCollection, uploadFiles } from "./support.ts";

let g: GatewayTest;
let worker: TinyWorker;
let dir: string;
let collection: string;
let embedderId: string;

const documents = {
  "trains.md": "# Travel\n\n## Trains\nBook second-class train tickets for journeys under six hours.",
  "laptops.md":
    "# Equipment\n\n## Laptops\nEvery engineer receives a laptop with thirty-two gigabytes of memory.",
  "leave.md": "# Leave\n\n## Parental leave\nEmployees receive sixteen weeks of paid parental leave.",
};

async function upload(files: Record<string, string>) {
  expect((await uploadFiles(g, collection, files)).status).toBe(201);
}

const embeddedCount = async () =>
  (
    await g.o.t.app.db
      .select({ n: count() })
      .from(knowledgeChunkEmbeddings)
      .where(eq(knowledgeChunkEmbeddings.deploymentId, embedderId))
  )[0]?.n ?? 0;
const chunkCount = async () =>
  (
    await g.o.t.app.db
      .select({ n: count() })
      .from(knowledgeChunks)
      .where(eq(knowledgeChunks.collectionId, collection))
  )[0]?.n ?? 0;

async function loggedRetrieval(requestId: string) {
  const [row] = await eventually(async () => {
    const rows = await g.o.t.app.db
      .select({ retrieval: inferenceLogs.retrieval })
      .from(inferenceLogs)
      .where(and(eq(inferenceLogs.requestId, requestId)));
    return rows.length > 0 ? rows : undefined;
  });
  return row?.retrieval as { mode: string; passages: { document: string }[]; fallback?: string };
}

async function ask(content: string) {
  const res = await chat(g, { messages: [{ role: "user", content }] });
  expect(res.status).toBe(200);
  return loggedRetrieval(res.headers.get("x-request-id") as string);
}

beforeAll(async () => {
  g = await startGatewayTest();
  // The background embedding runs count their quiet period on the gateway's clock, which a test moves.
  const { app } = g.o.t;
  app.knowledge.embedding = new EmbeddingScheduler(app.db, app.knowledge.balancer, app.log, g.clock.now);
  dir = mkdtempSync(join(tmpdir(), "vector-retrieval-"));
  worker = await startTinyWorker(dir, "embedder");
  embedderId = (
    await insertDeployment(g.o.t.app.db, g.o.orgId, {
      name: "embedder",
      replicas: [{ state: "READY", endpoint: `${worker.url}/v1` }],
    })
  ).id;
  await insertDeployment(g.o.t.app.db, g.o.orgId, { name: "stopped-embedder", status: "STOPPED" });
  collection = await createCollection(g, "handbook");
  await upload(documents);
}, 90_000);
afterAll(async () => {
  await worker?.stop();
  await g.close();
  rmSync(dir, { recursive: true, force: true });
}, 30_000);

test("naming an embedding deployment in the rag policy embeds every passage of its collections", async () => {
  await setPolicy(g, "rag", { collection_ids: [collection], top_k: 2, embedding_deployment: "embedder" });
  const chunks = await chunkCount();
  expect(chunks).toBeGreaterThanOrEqual(3);
  await eventually(async () => ((await embeddedCount()) === chunks ? true : undefined), 60_000);
}, 90_000);

test("a passage's own text is its nearest neighbour, with pgvector and in memory alike", async () => {
  const [chunk] = await g.o.t.app.db
    .select()
    .from(knowledgeChunks)
    .where(eq(knowledgeChunks.collectionId, collection))
    .limit(1);
  if (!chunk) throw new Error("no chunk");
  const [query] = (await embedTexts({
    endpoints: [`${worker.url}/v1`],
    model: "embedder",
    texts: [`${chunk.heading}\n${chunk.text}`],
    timeoutMs: 10_000,
  })) as [Float32Array];
  const options = { deploymentId: embedderId, collectionIds: [collection], query, limit: 3 };
  const engines = [await g.o.t.app.knowledge.vectors.engine(), "memory" as const];
  // PGlite always has pgvector; the machine's PostgreSQL may not, and then both runs scan in memory.
  if (!usingPostgres) expect(engines[0]).toBe("pgvector");
  for (const engine of engines) {
    const found = await g.o.t.app.knowledge.vectors.search({ ...options, engine });
    expect(found[0]?.chunkId).toBe(chunk.id);
    expect(found[0]?.score).toBeCloseTo(1, 3);
    expect(found.length).toBe(3);
    expect((found[1]?.score as number) < (found[0]?.score as number)).toBe(true);
  }
}, 30_000);

test("a question is answered from both rankings fused, and the log says hybrid with the documents used", async () => {
  const before = g.stub.received.length;
  const note = await ask("how many weeks of parental leave do employees receive");
  expect(note.mode).toBe("hybrid");
  expect(note.fallback).toBeUndefined();
  expect(note.passages.map((p) => p.document)).toContain("leave.md");
  const sent = g.stub.received[before] as { messages: { content: string }[] };
  expect(JSON.stringify(sent.messages)).toContain("sixteen weeks of paid parental leave");
  expect(JSON.stringify(sent.messages)).toContain("leave.md");
}, 30_000);

test("an embedding deployment that is not RUNNING or does not exist: full text answers, the log says why", async () => {
  await setPolicy(g, "rag", { collection_ids: [collection], embedding_deployment: "stopped-embedder" });
  g.clock.advance(1100);
  const stopped = await ask("how many weeks of parental leave");
  expect(stopped.mode).toBe("full_text");
  expect(stopped.fallback).toContain("stopped-embedder is STOPPED, not RUNNING");
  expect(stopped.passages.map((p) => p.document)).toContain("leave.md");

  await setPolicy(g, "rag", { collection_ids: [collection], embedding_deployment: "no-such-model" });
  g.clock.advance(1100);
  const missing = await ask("how many weeks of parental leave");
  expect(missing.mode).toBe("full_text");
  expect(missing.fallback).toContain("no-such-model does not exist");
}, 30_000);

test("passages uploaded later are embedded after the next question, without anyone asking for it", async () => {
  await setPolicy(g, "rag", { collection_ids: [collection], top_k: 2, embedding_deployment: "embedder" });
  await upload({ "visas.md": "# Travel\n\n## Visas\nThe travel desk applies for visas three weeks ahead." });
  g.clock.advance(5100); // past the quiet period of the last run that found nothing to do
  await ask("who applies for visas");
  const chunks = await chunkCount();
  await eventually(async () => ((await embeddedCount()) === chunks ? true : undefined), 60_000);

  // The in-memory ranking read these collections' vectors before: it sees the new passage now, and
  // no longer sees a deleted document's.
  const [visas] = await g.o.t.app.db
    .select()
    .from(knowledgeChunks)
    .where(and(eq(knowledgeChunks.collectionId, collection), eq(knowledgeChunks.heading, "Travel > Visas")));
  if (!visas) throw new Error("no visas chunk");
  const [query] = (await embedTexts({
    endpoints: [`${worker.url}/v1`],
    model: "embedder",
    texts: [`${visas.heading}\n${visas.text}`],
    timeoutMs: 10_000,
  })) as [Float32Array];
  const search = () =>
    g.o.t.app.knowledge.vectors.search({
      deploymentId: embedderId,
      collectionIds: [collection],
      query,
      limit: 1,
      engine: "memory",
    });
  expect((await search())[0]?.chunkId).toBe(visas.id);
  const deleted = await call(
    g.o.filtration,
    "DELETE",
    `/management/knowledge-base/documents/${visas.documentId}`,
    {
      token: g.o.token,
    },
  );
  expect(deleted.status).toBeLessThan(300);
  expect((await search())[0]?.chunkId).not.toBe(visas.id);
}, 60_000);
