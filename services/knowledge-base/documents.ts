// Documents of a collection: listed without their text, read one at a time with it, deleted one by one.
import { and, desc, eq } from "drizzle-orm";
import { notFound } from "#core/errors.ts";
import { uuidOr404 } from "#core/ids.ts";
import { type KnowledgeDocumentRow, knowledgeDocuments } from "#db/schema/index.ts";
import { mutate } from "../audit/mutate.ts";
import { actorOf, type RequestContext } from "../context.ts";
import { collectionOfOrg } from "./collections.ts";

export interface DocumentView {
  id: string;
  collection_id: string;
  filename: string;
  content_type: string;
  size_bytes: number;
  content_sha256: string;
  created_at: string;
}

export const documentView = (row: Omit<KnowledgeDocumentRow, "content" | "orgId">): DocumentView => ({
  id: row.id,
  collection_id: row.collectionId,
  filename: row.filename,
  content_type: row.contentType,
  size_bytes: row.sizeBytes,
  content_sha256: row.contentSha256,
  created_at: row.createdAt.toISOString(),
});

const listed = {
  id: knowledgeDocuments.id,
  collectionId: knowledgeDocuments.collectionId,
  filename: knowledgeDocuments.filename,
  contentType: knowledgeDocuments.contentType,
  sizeBytes: knowledgeDocuments.sizeBytes,
  contentSha256: knowledgeDocuments.contentSha256,
  createdAt: knowledgeDocuments.createdAt,
};

export async function listDocuments(
  ctx: RequestContext,
  collectionId: string,
): Promise<{ documents: DocumentView[] }> {
  const collection = await collectionOfOrg(ctx.db, actorOf(ctx).orgId, collectionId);
  const rows = await ctx.db
    .select(listed)
    .from(knowledgeDocuments)
    .where(eq(knowledgeDocuments.collectionId, collection.id))
    .orderBy(desc(knowledgeDocuments.createdAt), desc(knowledgeDocuments.id));
  return { documents: rows.map(documentView) };
}

export async function getDocument(
  ctx: RequestContext,
  documentId: string,
): Promise<DocumentView & { content: string }> {
  const id = uuidOr404(documentId, "document");
  const [row] = await ctx.db
    .select()
    .from(knowledgeDocuments)
    .where(and(eq(knowledgeDocuments.id, id), eq(knowledgeDocuments.orgId, actorOf(ctx).orgId)))
    .limit(1);
  if (!row) throw notFound("document");
  return { ...documentView(row), content: row.content };
}

export async function deleteDocument(
  ctx: RequestContext,
  documentId: string,
): Promise<{ id: string; deleted: true }> {
  const orgId = actorOf(ctx).orgId;
  const id = uuidOr404(documentId, "document");
  return mutate(ctx, "knowledge_document.delete", { type: "knowledge_document", id }, async (tx) => {
    const removed = await tx
      .delete(knowledgeDocuments)
      .where(and(eq(knowledgeDocuments.id, id), eq(knowledgeDocuments.orgId, orgId)))
      .returning({ id: knowledgeDocuments.id, collectionId: knowledgeDocuments.collectionId });
    if (removed.length === 0) throw notFound("document");
    return { result: { id, deleted: true as const }, details: { collection_id: removed[0]?.collectionId } };
  });
}
