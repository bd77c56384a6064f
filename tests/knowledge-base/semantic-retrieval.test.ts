// Vector search that matters: with a real embedding model (GloVe word vectors as a GGUF served by a
// llama.cpp worker, scripts/make-word-vector-gguf.ts) as the rag policy's embedding deployment, a
// question sharing no word with the right passage still brings it into the prompt the replica
// receives; full-text search alone finds nothing for it.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { count, eq } from "drizzle-orm";
import { embedTexts } from "#adapters/upstream/embed.ts";
import { knowledgeChunkEmbeddings } from "#db/schema/index.ts";
import { writeWordVectorGguf } from "#scripts/make-word-vector-gguf.ts";
import { startLlamaWorker, type TinyWorker } from "../fakes/support/tiny-worker.ts";
import { chat, type GatewayTest, setPolicy, startGatewayTest } from "../inference/support.ts";
import { insertDeployment } from "../management/support.ts";
import { eventually } from "../orchestration/support.ts";
import { createCollection, uploadFiles } from "./support.ts";

let g: GatewayTest;
let worker: TinyWorker;
let dir: string;
let collection: string;
let embedderId: string;

const documents = {
  "leave.md": "# Leave\n\n## Parental leave\nEmployees receive sixteen weeks of paid parental leave.",
  "trains.md": "# Travel\n\n## Trains\nBook second-class train tickets for journeys under six hours.",
  "laptops.md": "# Equipment\n\n## Laptops\nEvery engineer receives a laptop with a second monitor.",
};
/** Not one word (or stem) in common with leave.md, nor with the others. */
const question = "How long may a mother stay home after her baby is born?";

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "semantic-retrieval-"));
  // The 60,000 most frequent words are plenty for these texts and build in a few seconds.
  const model = writeWordVectorGguf(join(dir, "glove.gguf"), { maxWords: 60_000, contextLength: 512 });
  worker = await startLlamaWorker(model.path, "glove");
  g = await startGatewayTest();
  embedderId = (
    await insertDeployment(g.o.t.app.db, g.o.orgId, {
      name: "glove",
      replicas: [{ state: "READY", endpoint: `${worker.url}/v1` }],
    })
  ).id;
  collection = await createCollection(g, "handbook");
  expect((await uploadFiles(g, collection, documents)).status).toBe(201);
}, 120_000);
afterAll(async () => {
  await worker?.stop();
  await g?.close();
  rmSync(dir, { recursive: true, force: true });
}, 30_000);

async function received(content: string) {
  g.clock.advance(1100); // the gateway's context cache
  const before = g.stub.received.length;
  expect((await chat(g, { messages: [{ role: "user", content }] })).status).toBe(200);
  return JSON.stringify((g.stub.received[before] as { messages: unknown[] }).messages);
}

test("full text alone finds nothing for a question in other words", async () => {
  await setPolicy(g, "rag", { collection_ids: [collection], top_k: 1 });
  const sent = await received(question);
  expect(sent).not.toContain("(leave.md)");
  expect(sent).not.toContain("[1]");
}, 30_000);

test("with the embedding deployment, the passage that answers it is in the prompt", async () => {
  await setPolicy(g, "rag", { collection_ids: [collection], top_k: 1, embedding_deployment: "glove" });
  await eventually(async () => {
    const [row] = await g.o.t.app.db
      .select({ n: count() })
      .from(knowledgeChunkEmbeddings)
      .where(eq(knowledgeChunkEmbeddings.deploymentId, embedderId));
    return row?.n === 3 ? true : undefined;
  }, 30_000);
  const sent = await received(question);
  expect(sent).toContain("[1] (leave.md)");
  expect(sent).toContain("sixteen weeks of paid parental leave");
  expect(sent).not.toContain("trains.md");
}, 60_000);

test("a passage longer than the model's context is embedded from its beginning (start and end tokens included)", async () => {
  const long = "parental leave ".repeat(3000);
  const [whole, cut] = await embedTexts({
    endpoints: [`${worker.url}/v1`],
    model: "glove",
    texts: [long, `${long} trains laptops`],
    timeoutMs: 30_000,
  });
  expect(whole?.length).toBe(cut?.length as number);
  expect(Array.from(whole as Float32Array)).toEqual(Array.from(cut as Float32Array));
}, 30_000);
