// Uploading documents into a collection: text, Markdown, HTML and PDF, stored as their text with a
// SHA-256 of it, and cut into the chunks retrieval searches. Every file is checked before anything is
// written, and documents and chunks are written in one transaction: an upload with one bad file stores
// nothing. The same content is stored once per collection; sending it again answers the stored one.
import { createHash } from "node:crypto";
import { and, eq, inArray } from "drizzle-orm";
import { AppError, type FieldProblem } from "#core/errors.ts";
import type { Executor } from "#db/client.ts";
import { type KnowledgeDocumentRow, knowledgeDocuments } from "#db/schema/index.ts";
import { mutate } from "../audit/mutate.ts";
import { actorOf, type RequestContext } from "../context.ts";
import { type ChunkBatches, chunkDocument, storeChunks } from "./chunk-store.ts";
import { collectionOfOrg } from "./collections.ts";
import { type DocumentType, documentTypeOf } from "./document-types.ts";
import { type DocumentView, documentView } from "./documents.ts";
import type { WithKnowledge } from "./runtime.ts";

export const uploadLimits = {
  fileBytes: 10 * 1024 * 1024,
  files: 20,
  /** The route's body limit: room for a few full-size files and the multipart framing. */
  requestBytes: 50 * 1024 * 1024 + 64 * 1024,
} as const;

/** What a multipart file part offers (a web File satisfies it). */
export interface UploadedFile {
  name: string;
  type: string;
  size: number;
  arrayBuffer(): Promise<ArrayBuffer>;
}

export interface UploadResult {
  collection_id: string;
  /** One per file sent, in order; `duplicate`: the content was already there (or sent twice). */
  documents: (DocumentView & { duplicate: boolean })[];
  stored: number;
  duplicates: number;
}

interface Checked {
  filename: string;
  contentType: DocumentType;
  sizeBytes: number;
  sha: string;
  content: string;
  /** Where it came in the upload (`files.N`), for a refusal. */
  place: string;
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

async function check(
  file: UploadedFile,
  field: string,
): Promise<Omit<Checked, "place"> | (FieldProblem & { tooLarge?: true })> {
  const filename = (file.name || "untitled").slice(0, 255);
  if (file.size > uploadLimits.fileBytes) {
    return {
      field,
      message: `is over the ${uploadLimits.fileBytes / 1024 / 1024} MiB limit per file`,
      tooLarge: true,
    };
  }
  const contentType = documentTypeOf(filename, file.type);
  if (!contentType) return { field, message: "is not text, Markdown, HTML or PDF" };
  const bytes = new Uint8Array(await file.arrayBuffer());
  let content: string;
  if (contentType === "application/pdf") {
    // Imported on first use: pdf.js and the HTML/Markdown readers cost every process memory at start.
    const { pdfToText } = await import("./extract.ts");
    const text = await pdfToText(bytes);
    if (text === undefined) return { field, message: "is a PDF that cannot be read (damaged or encrypted)" };
    if (text.trim() === "") return { field, message: "is a PDF without text (a scan needs OCR first)" };
    content = text;
  } else {
    try {
      content = utf8.decode(bytes);
    } catch {
      return { field, message: "is not UTF-8 text" };
    }
  }
  // A NUL is no part of text (and PostgreSQL text cannot hold one).
  if (content.includes("\u0000")) return { field, message: "is binary, not text" };
  if (content.trim() === "") return { field, message: "is empty" };
  const sha = createHash("sha256").update(bytes).digest("hex");
  return { filename, contentType, sizeBytes: bytes.byteLength, sha, content };
}

/** One to uploadLimits.files files, or 400. */
function assertFileCount(files: readonly UploadedFile[]): void {
  if (files.length === 0) {
    throw new AppError("validation_error", "files: at least one file is needed", {
      fields: [{ field: "files", message: "at least one file is needed" }],
    });
  }
  if (files.length > uploadLimits.files) {
    throw new AppError("validation_error", `files: at most ${uploadLimits.files} files an upload`, {
      fields: [{ field: "files", message: `at most ${uploadLimits.files} files an upload` }],
    });
  }
}

/** Every file checked; one refusal naming every bad file (413 when all are too large) if any is. */
async function checkAll(files: readonly UploadedFile[]): Promise<Checked[]> {
  const checked: Checked[] = [];
  const problems: (FieldProblem & { tooLarge?: true })[] = [];
  for (const [index, file] of files.entries()) {
    const result = await check(file, `files.${index}`);
    if ("field" in result) problems.push(result);
    else checked.push({ ...result, place: `files.${index}` });
  }
  if (problems.length > 0) {
    const fields = problems.map(({ field, message }) => ({ field, message }));
    const code = problems.every((p) => p.tooLarge) ? "payload_too_large" : "validation_error";
    throw new AppError(
      code,
      `nothing was stored: ${fields.map((f) => `${f.field} ${f.message}`).join("; ")}`,
      { fields },
    );
  }
  return checked;
}

/** Each distinct content read and cut, before the transaction, on a worker (chunk-store.ts). */
async function chunkAll(checked: readonly Checked[], deadlineMs: number): Promise<Map<string, ChunkBatches>> {
  const chunksOf = new Map<string, ChunkBatches>();
  for (const c of checked) {
    if (!chunksOf.has(c.sha))
      chunksOf.set(c.sha, await chunkDocument(c.content, c.contentType, c.place, deadlineMs));
  }
  return chunksOf;
}

/** The documents of new contents and their chunks (a content already stored is left as it is). */
async function storeNew(
  tx: Executor,
  target: { orgId: string; collectionId: string },
  fresh: readonly Checked[],
  chunksOf: ReadonlyMap<string, ChunkBatches>,
): Promise<Set<string>> {
  const inserted = await tx
    .insert(knowledgeDocuments)
    .values(
      fresh.map((c) => ({
        ...target,
        filename: c.filename,
        contentType: c.contentType,
        sizeBytes: c.sizeBytes,
        contentSha256: c.sha,
        content: c.content,
      })),
    )
    .onConflictDoNothing({ target: [knowledgeDocuments.collectionId, knowledgeDocuments.contentSha256] })
    .returning({ id: knowledgeDocuments.id, sha: knowledgeDocuments.contentSha256 });
  await storeChunks(
    tx,
    inserted.map((row) => ({
      ...target,
      documentId: row.id,
      chunks: chunksOf.get(row.sha) ?? { count: 0, batches: [] },
    })),
  );
  return new Set(inserted.map((r) => r.id));
}

/** One view per file sent, in order: only the first file of a new content counts as stored. */
async function documentsOf(
  tx: Executor,
  collectionId: string,
  checked: readonly Checked[],
  newIds: ReadonlySet<string>,
): Promise<UploadResult["documents"]> {
  const all = await tx
    .select()
    .from(knowledgeDocuments)
    .where(
      and(
        eq(knowledgeDocuments.collectionId, collectionId),
        inArray(
          knowledgeDocuments.contentSha256,
          checked.map((c) => c.sha),
        ),
      ),
    );
  const bySha = new Map<string, KnowledgeDocumentRow>(all.map((row) => [row.contentSha256, row]));
  const claimed = new Set<string>();
  return checked.map((c) => {
    const row = bySha.get(c.sha);
    if (!row) throw new Error(`upload: the document of ${c.place} was neither stored nor found`);
    // A repeat in the same upload is a duplicate.
    const duplicate = !newIds.has(row.id) || claimed.has(row.id);
    claimed.add(row.id);
    return { ...documentView(row), duplicate };
  });
}

export async function uploadDocuments(
  ctx: RequestContext & WithKnowledge,
  input: { collection_id: string; files: UploadedFile[] },
): Promise<UploadResult> {
  const orgId = actorOf(ctx).orgId;
  assertFileCount(input.files);
  // The collection first: a request for another organization's collection learns nothing more.
  const collection = await collectionOfOrg(ctx.db, orgId, input.collection_id);
  const checked = await checkAll(input.files);
  const chunksOf = await chunkAll(checked, ctx.knowledge.chunkDeadlineMs);
  return mutate(
    ctx,
    "knowledge_document.upload",
    { type: "knowledge_collection", id: collection.id },
    async (tx) => {
      const fresh = [...new Map(checked.map((c) => [c.sha, c])).values()];
      const newIds = await storeNew(tx, { orgId, collectionId: collection.id }, fresh, chunksOf);
      const documents = await documentsOf(tx, collection.id, checked, newIds);
      const stored = documents.filter((d) => !d.duplicate).length;
      return {
        result: { collection_id: collection.id, documents, stored, duplicates: documents.length - stored },
        details: { stored, duplicates: documents.length - stored },
      };
    },
  );
}
