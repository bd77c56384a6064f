import { afterAll, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { eq } from "drizzle-orm";
import { knowledgeDocuments } from "#db/schema/index.ts";
import type { GET as collectionDocuments } from "#routes/filtration/management/knowledge-base/collections/[id]/documents.ts";
import type {
  POST as createCollection,
  GET as listCollections,
} from "#routes/filtration/management/knowledge-base/collections/index.ts";
import type { GET as readDocument } from "#routes/filtration/management/knowledge-base/documents/[id].ts";
import type { POST as uploadRoute } from "#routes/filtration/management/knowledge-base/upload.ts";
import { documentTypeOf } from "#services/knowledge-base/document-types.ts";
import { type BodyOf, call, type ErrorBody } from "../support/app.ts";
import { startWithCallers } from "../support/callers.ts";
import { fieldsOf } from "./support.ts";

const { t, handle, admin, viewer, outsider } = await startWithCallers("kb");
afterAll(() => t.close());

const newCollection = async (name: string, token = admin) =>
  (
    await call<typeof createCollection>(handle, "POST", "/management/knowledge-base/collections", {
      token,
      body: { name },
    })
  ).body.id;

/** Multipart, as curl -F sends it; the body is the route's answer, or `upload<ErrorBody>` for a refusal. */
async function upload<R = typeof uploadRoute>(
  collectionId: string | undefined,
  files: File[],
  token = admin,
) {
  const form = new FormData();
  if (collectionId !== undefined) form.append("collection_id", collectionId);
  for (const file of files) form.append("files", file);
  const response = await handle(
    new Request("http://localhost/management/knowledge-base/upload", {
      method: "POST",
      headers: { authorization: `Bearer ${token}` },
      body: form,
    }),
  );
  // The body is the server's JSON: its type is the route's contract, which the server checks it against.
  const body: BodyOf<R> = await response.json();
  return { status: response.status, body };
}

const documentsIn = async (collectionId: string) =>
  t.app.db.select().from(knowledgeDocuments).where(eq(knowledgeDocuments.collectionId, collectionId));

test("collections: create 201, list with document counts, a taken name 409, a blank one 400", async () => {
  const created = await call<typeof createCollection>(
    handle,
    "POST",
    "/management/knowledge-base/collections",
    {
      token: admin,
      body: { name: "handbook", description: "HR handbook" },
    },
  );
  expect(created.status).toBe(201);
  expect(created.body).toMatchObject({ name: "handbook", description: "HR handbook", document_count: 0 });
  const dup = await call(handle, "POST", "/management/knowledge-base/collections", {
    token: admin,
    body: { name: "handbook" },
  });
  expect(dup.status).toBe(409);
  const blank = await call<ErrorBody>(handle, "POST", "/management/knowledge-base/collections", {
    token: admin,
    body: { name: " " },
  });
  expect(fieldsOf(blank.body)).toEqual(["name"]);
  await upload(created.body.id, [new File(["hello"], "a.txt", { type: "text/plain" })]);
  const list = await call<typeof listCollections>(handle, "GET", "/management/knowledge-base/collections", {
    token: viewer,
  });
  expect(list.status).toBe(200);
  expect(list.body.collections.find((c: { id: string }) => c.id === created.body.id)?.document_count).toBe(1);
});

test("an upload stores each text file's content and SHA-256, and lists them", async () => {
  const id = await newCollection("docs");
  const markdown = "# Title\n\nSome *markdown*.";
  const res = await upload(id, [
    new File(["plain text"], "notes.txt", { type: "text/plain" }),
    new File([markdown], "readme.md", { type: "text/markdown" }),
    new File(["<p>html</p>"], "page.html", { type: "application/octet-stream" }),
  ]);
  expect(res.status).toBe(201);
  expect(res.body).toMatchObject({ collection_id: id, stored: 3, duplicates: 0 });
  expect(res.body.documents.map((d: { content_type: string }) => d.content_type)).toEqual([
    "text/plain",
    "text/markdown",
    "text/html",
  ]);
  const rows = await documentsIn(id);
  const md = rows.find((r) => r.filename === "readme.md");
  expect(md?.content).toBe(markdown);
  expect(md?.contentSha256).toBe(createHash("sha256").update(markdown).digest("hex"));
  expect(md?.sizeBytes).toBe(Buffer.byteLength(markdown));

  const listed = await call<typeof collectionDocuments>(
    handle,
    "GET",
    `/management/knowledge-base/collections/${id}/documents`,
    { token: viewer },
  );
  expect(listed.status).toBe(200);
  expect(listed.body.documents).toHaveLength(3);
  expect(listed.body.documents[0]).not.toHaveProperty("content");
  const one = await call<typeof readDocument>(
    handle,
    "GET",
    `/management/knowledge-base/documents/${md?.id}`,
    { token: viewer },
  );
  expect(one.body).toMatchObject({ filename: "readme.md", content: markdown });
});

test("the same content is stored once per collection, within an upload and across uploads", async () => {
  const id = await newCollection("dedup");
  const first = await upload(id, [
    new File(["same words"], "a.txt", { type: "text/plain" }),
    new File(["same words"], "b.txt", { type: "text/plain" }),
  ]);
  expect(first.status).toBe(201);
  expect(first.body).toMatchObject({ stored: 1, duplicates: 1 });
  expect(first.body.documents[0]?.id).toBe(first.body.documents[1]?.id);
  expect(first.body.documents.map((d: { duplicate: boolean }) => d.duplicate)).toEqual([false, true]);
  const again = await upload(id, [new File(["same words"], "c.md", { type: "text/markdown" })]);
  expect(again.body).toMatchObject({ stored: 0, duplicates: 1 });
  expect(again.body.documents[0]?.id).toBe(first.body.documents[0]?.id);
  expect(await documentsIn(id)).toHaveLength(1);
  // Another collection stores its own copy.
  const elsewhere = await newCollection("dedup-elsewhere");
  expect(
    (await upload(elsewhere, [new File(["same words"], "a.txt", { type: "text/plain" })])).body.stored,
  ).toBe(1);
});

test("one bad file and nothing of the upload is stored", async () => {
  const id = await newCollection("atomic");
  const good = () => new File(["good content"], "good.txt", { type: "text/plain" });
  const cases: [File, number, string][] = [
    [new File([""], "empty.txt", { type: "text/plain" }), 400, "is empty"],
    [new File(["   \n"], "blank.md", { type: "text/markdown" }), 400, "is empty"],
    [
      new File([new Uint8Array([0x89, 0x50, 0x4e, 0x47])], "logo.png", { type: "image/png" }),
      400,
      "is not text",
    ],
    [new File([new Uint8Array([0xff, 0xfe, 0x41])], "latin.txt", { type: "text/plain" }), 400, "UTF-8"],
    [new File(["a\u0000b"], "nul.txt", { type: "text/plain" }), 400, "binary"],
    [new File(["x".repeat(10 * 1024 * 1024 + 1)], "huge.txt", { type: "text/plain" }), 413, "limit"],
  ];
  for (const [bad, status, message] of cases) {
    const res = await upload<ErrorBody>(id, [good(), bad]);
    expect(res.status).toBe(status);
    expect(fieldsOf(res.body)).toEqual(["files.1"]);
    expect(res.body.error.message).toContain(message);
  }
  expect(await documentsIn(id)).toHaveLength(0);
  expect((await upload(id, [good()])).status).toBe(201);
});

test("an unknown collection, or another organization's, is 404; a missing field 400", async () => {
  const file = () => new File(["content"], "a.txt", { type: "text/plain" });
  expect((await upload(crypto.randomUUID(), [file()])).status).toBe(404);
  expect((await upload("not-a-uuid", [file()])).status).toBe(404);
  const id = await newCollection("private");
  const outside = await upload(id, [file()], outsider);
  expect(outside.status).toBe(404);
  expect(await documentsIn(id)).toHaveLength(0);
  expect(
    (await call(handle, "GET", `/management/knowledge-base/collections/${id}/documents`, { token: outsider }))
      .status,
  ).toBe(404);
  const noCollection = await upload<ErrorBody>(undefined, [file()]);
  expect(noCollection.status).toBe(400);
  expect(fieldsOf(noCollection.body)).toContain("collection_id");
  const noFiles = await upload<ErrorBody>(id, []);
  expect(noFiles.status).toBe(400);
  expect(fieldsOf(noFiles.body)).toContain("files");
  const json = await call(handle, "POST", "/management/knowledge-base/upload", { token: admin, body: {} });
  expect(json.status).toBe(400);
});

test("a document is deleted once; another organization's is 404", async () => {
  const id = await newCollection("deletions");
  const docId = (await upload(id, [new File(["bye"], "bye.txt", { type: "text/plain" })])).body.documents[0]
    ?.id;
  expect(
    (await call(handle, "DELETE", `/management/knowledge-base/documents/${docId}`, { token: viewer })).status,
  ).toBe(403);
  expect(
    (await call(handle, "DELETE", `/management/knowledge-base/documents/${docId}`, { token: outsider }))
      .status,
  ).toBe(404);
  expect(
    (await call(handle, "GET", `/management/knowledge-base/documents/${docId}`, { token: outsider })).status,
  ).toBe(404);
  expect(
    (await call(handle, "DELETE", `/management/knowledge-base/documents/${docId}`, { token: admin })).status,
  ).toBe(200);
  expect(
    (await call(handle, "DELETE", `/management/knowledge-base/documents/${docId}`, { token: admin })).status,
  ).toBe(404);
  expect(await documentsIn(id)).toHaveLength(0);
});

test("401 without a token; a viewer may not create collections or upload", async () => {
  expect((await call(handle, "GET", "/management/knowledge-base/collections")).status).toBe(401);
  const id = await newCollection("viewer-proof");
  expect(
    (
      await call(handle, "POST", "/management/knowledge-base/collections", {
        token: viewer,
        body: { name: "v" },
      })
    ).status,
  ).toBe(403);
  expect((await upload(id, [new File(["x"], "x.txt", { type: "text/plain" })], viewer)).status).toBe(403);
});

test("a file's type comes from its media type, or its extension when that is generic", () => {
  expect(documentTypeOf("a.md", "text/markdown; charset=utf-8")).toBe("text/markdown");
  expect(documentTypeOf("a.md", "")).toBe("text/markdown");
  expect(documentTypeOf("a.HTM", "application/octet-stream")).toBe("text/html");
  expect(documentTypeOf("a.pdf", "application/pdf")).toBe("application/pdf");
  expect(
    documentTypeOf("a.docx", "application/vnd.openxmlformats-officedocument.wordprocessingml.document"),
  ).toBeUndefined();
  expect(documentTypeOf("a.txt", "image/png")).toBeUndefined();
  expect(documentTypeOf("README", "")).toBeUndefined();
});
