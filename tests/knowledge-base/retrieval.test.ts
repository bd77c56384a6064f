// Retrieval end to end: documents uploaded through the API are cut into chunks in the upload's
// transaction, found by full-text ranking, and injected into what the replica receives when the
// deployment's `rag` policy names their collection (the caller sends nothing extra).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { knowledgeChunks } from "#db/schema/index.ts";
import type { POST as createPrompt } from "#routes/filtration/management/prompts/index.ts";
import { htmlToText } from "#services/knowledge-base/extract.ts";
import { fullTextSearch, fuseByRank, type Passage } from "#services/knowledge-base/search.ts";
import { chat, type GatewayTest, setPolicy, startGatewayTest } from "../inference/support.ts";
import { call } from "../support/app.ts";
import { makePdf } from "../support/pdf.ts";
import { createCollection, uploadFiles } from "./support.ts";

let g: GatewayTest;
let collection: string;
let documents: Record<string, string>;

const handbook = `# Leave policy

## Parental leave
Employees receive sixteen weeks of paid parental leave after the birth or adoption of a child.

## Sick days
Report a sick day to your manager before ten in the morning; a doctor's note is needed after three days.
`;
const hardware = `<html><head><style>p{color:red}</style><script>var x = "laptop";</script></head><body>
<nav>Home | About</nav><h1>Equipment</h1><p>Every engineer gets a laptop with 32&nbsp;GB of memory &amp; a
second monitor.</p><h2>Returns</h2><p>Return the laptop to the IT desk on your last day.</p></body></html>`;

const upload = (files: File[]) => uploadFiles(g, collection, files);

beforeAll(async () => {
  g = await startGatewayTest();
  collection = await createCollection(g, "company");
  const res = await upload([
    new File([handbook], "handbook.md", { type: "text/markdown" }),
    new File([hardware], "hardware.html", { type: "text/html" }),
  ]);
  expect(res.status).toBe(201);
  documents = Object.fromEntries(res.body.documents.map((d) => [d.filename, d.id]));
}, 30_000);
afterAll(() => g.close(), 30_000);

const chunksOf = (documentId: string) =>
  g.o.t.app.db.select().from(knowledgeChunks).where(eq(knowledgeChunks.documentId, documentId));

test("an upload stores each document's chunks with their heading path; HTML loses its markup", async () => {
  const md = await chunksOf(documents["handbook.md"] as string);
  expect(md.map((c) => c.heading)).toEqual(["Leave policy > Parental leave", "Leave policy > Sick days"]);
  const html = await chunksOf(documents["hardware.html"] as string);
  expect(html.map((c) => c.heading)).toEqual(["Equipment", "Equipment > Returns"]);
  const text = html.map((c) => c.text).join("\n");
  expect(text).toContain("32 GB of memory & a second monitor");
  expect(text).not.toMatch(/<|color:red|var x|Home \| About/);
  expect(htmlToText("<p>a&#x41;&#66;&lt;</p>")).toBe("aAB<");
});

test("full-text search ranks the passage that answers first, scores within 0..1, min_score filters", async () => {
  const search = (q: string, minScore = 0) =>
    fullTextSearch(g.o.t.app.db, g.o.orgId, q, { collectionIds: [collection], topK: 3, minScore });
  const leave = await search("How many weeks of parental leave do we get?");
  expect(leave[0]?.heading).toBe("Leave policy > Parental leave");
  expect(leave[0]?.documentName).toBe("handbook.md");
  expect(leave.every((p) => p.score > 0 && p.score < 1)).toBe(true);
  const laptop = await search("where do I return my laptop");
  expect(laptop[0]?.heading).toBe("Equipment > Returns");
  expect(await search("quantum chromodynamics")).toEqual([]);
  expect(await search("parental leave", 0.99)).toEqual([]);
  // Another organization's search does not see these collections.
  const other = await fullTextSearch(g.o.t.app.db, crypto.randomUUID(), "parental leave", {
    collectionIds: [collection],
    topK: 3,
    minScore: 0,
  });
  expect(other).toEqual([]);
});

test("reciprocal rank fusion favours what both rankings agree on", () => {
  const p = (id: string): Passage => ({
    chunkId: id,
    documentId: id,
    documentName: id,
    heading: "",
    text: id,
    score: 0,
  });
  const fused = fuseByRank(
    [
      [p("a"), p("b"), p("c")],
      [p("b"), p("d"), p("a")],
    ],
    3,
  );
  expect(fused.map((x) => x.chunkId)).toEqual(["b", "a", "d"]);
  expect(fused[0]?.score).toBeLessThanOrEqual(1);
});

test("with a rag policy the replica receives the passages with their document names; no policy, none", async () => {
  const ask = async () => {
    expect(
      (await chat(g, { messages: [{ role: "user", content: "How long is parental leave?" }] })).status,
    ).toBe(200);
    return g.stub.received.at(-1) as { messages: { role: string; content: string }[] };
  };
  expect((await ask()).messages).toEqual([{ role: "user", content: "How long is parental leave?" }]);

  await setPolicy(g, "rag", { collection_ids: [collection], top_k: 1 });
  g.clock.advance(1100);
  const withContext = (await ask()).messages;
  expect(withContext).toHaveLength(2);
  expect(withContext[0]?.role).toBe("system");
  expect(withContext[0]?.content).toContain("[1] (handbook.md)");
  expect(withContext[0]?.content).toContain("sixteen weeks of paid parental leave");
  expect(withContext[0]?.content).not.toContain("laptop");
  expect(withContext[1]).toEqual({ role: "user", content: "How long is parental leave?" });

  // A template that asks for {{context}} gets the passages there instead.
  const template = await call<typeof createPrompt>(g.o.filtration, "POST", "/management/prompts", {
    token: g.o.token,
    body: { name: "cite", user_template: "Context:\n{{context}}\n\nQuestion: {{input}}" },
  });
  await setPolicy(g, "prompt", { template_id: template.body.id });
  g.clock.advance(1100);
  const templated = (await ask()).messages;
  expect(templated).toHaveLength(1);
  expect(templated[0]?.content).toStartWith("Context:\n[1] (handbook.md)\n");
  expect(templated[0]?.content).toEndWith("Question: How long is parental leave?");
}, 30_000);

test("deleting a document removes its chunks; a failed upload stores neither documents nor chunks", async () => {
  const id = documents["hardware.html"] as string;
  const res = await call(g.o.filtration, "DELETE", `/management/knowledge-base/documents/${id}`, {
    token: g.o.token,
  });
  expect(res.status).toBeLessThan(300);
  expect(await chunksOf(id)).toEqual([]);

  const before = (await g.o.t.app.db.select().from(knowledgeChunks)).length;
  const failed = await upload([
    new File(["# Fine\nA good document about holidays."], "ok.md", { type: "text/markdown" }),
    new File([new Uint8Array([0, 1, 2])], "bad.md", { type: "text/markdown" }),
  ]);
  expect(failed.status).toBe(400);
  expect((await g.o.t.app.db.select().from(knowledgeChunks)).length).toBe(before);
});

test("a PDF's text is stored and searched; a PDF that cannot be parsed is a 400 and stores nothing", async () => {
  const pdf = makePdf(["Travel policy", "Book trains for journeys under four hours instead of flights."]);
  const ok = await upload([new File([pdf], "travel.pdf", { type: "application/pdf" })]);
  expect(ok.status).toBe(201);
  expect(ok.body.documents[0]?.content_type).toBe("application/pdf");
  const found = await fullTextSearch(g.o.t.app.db, g.o.orgId, "should I take a train or a flight", {
    collectionIds: [collection],
    topK: 1,
    minScore: 0,
  });
  expect(found[0]?.documentName).toBe("travel.pdf");
  expect(found[0]?.text).toContain("Book trains for journeys under four hours");

  const before = (await g.o.t.app.db.select().from(knowledgeChunks)).length;
  const broken = await upload([new File(["%PDF-1.4 not really"], "broken.pdf", { type: "application/pdf" })]);
  expect(broken.status).toBe(400);
  expect(JSON.stringify(broken.body)).toContain("cannot be read");
  expect((await g.o.t.app.db.select().from(knowledgeChunks)).length).toBe(before);
}, 30_000);
