// Knowledge-base collections of the active organization: named sets of documents that a deployment's
// `rag` policy points at.
import { and, asc, count, eq } from "drizzle-orm";
import { AppError, invalid, notFound } from "#core/errors.ts";
import { uuidOr404 } from "#core/ids.ts";
import type { Executor } from "#db/client.ts";
import { type KnowledgeCollectionRow, knowledgeCollections, knowledgeDocuments } from "#db/schema/index.ts";
import { isUniqueViolation } from "#db/unique-violation.ts";
import { mutate } from "../audit/mutate.ts";
import { actorOf, type RequestContext } from "../context.ts";
import { refuseIfReferenced } from "../policy-references.ts";

export interface CollectionView {
  id: string;
  name: string;
  description: string | null;
  document_count: number;
  created_at: string;
}

const viewOf = (row: KnowledgeCollectionRow, documents: number): CollectionView => ({
  id: row.id,
  name: row.name,
  description: row.description,
  document_count: documents,
  created_at: row.createdAt.toISOString(),
});

export async function createCollection(
  ctx: RequestContext,
  input: { name: string; description?: string | undefined },
): Promise<CollectionView> {
  const actor = actorOf(ctx);
  const name = input.name.trim();
  if (name === "") throw invalid("name", "must not be blank");
  try {
    return await mutate(ctx, "knowledge_collection.create", { type: "knowledge_collection" }, async (tx) => {
      const [row] = await tx
        .insert(knowledgeCollections)
        .values({ orgId: actor.orgId, name, description: input.description?.trim() || null })
        .returning();
      const created = row as KnowledgeCollectionRow;
      return { result: viewOf(created, 0), target: { type: "knowledge_collection", id: created.id } };
    });
  } catch (error) {
    if (isUniqueViolation(error))
      throw new AppError("already_exists", "a collection with this name exists in this organization");
    throw error;
  }
}

export async function listCollections(ctx: RequestContext): Promise<{ collections: CollectionView[] }> {
  const rows = await ctx.db
    .select({ collection: knowledgeCollections, documents: count(knowledgeDocuments.id) })
    .from(knowledgeCollections)
    .leftJoin(knowledgeDocuments, eq(knowledgeDocuments.collectionId, knowledgeCollections.id))
    .where(eq(knowledgeCollections.orgId, actorOf(ctx).orgId))
    .groupBy(knowledgeCollections.id)
    .orderBy(asc(knowledgeCollections.name));
  return { collections: rows.map((r) => viewOf(r.collection, Number(r.documents))) };
}

/** A collection of the organization, or 404. */
export async function collectionOfOrg(
  db: Executor,
  orgId: string,
  collectionId: string,
): Promise<KnowledgeCollectionRow> {
  const id = uuidOr404(collectionId, "collection");
  const [row] = await db
    .select()
    .from(knowledgeCollections)
    .where(and(eq(knowledgeCollections.id, id), eq(knowledgeCollections.orgId, orgId)))
    .limit(1);
  if (!row) throw notFound("collection");
  return row;
}

/**
 * Deletes a collection with its documents, passages and embeddings; refused (409) while a `rag` policy
 * lists it.
 */
export async function deleteCollection(
  ctx: RequestContext,
  collectionId: string,
): Promise<{ id: string; deleted: true }> {
  const orgId = actorOf(ctx).orgId;
  const id = uuidOr404(collectionId, "collection");
  return mutate(ctx, "knowledge_collection.delete", { type: "knowledge_collection", id }, async (tx) => {
    const collection = await collectionOfOrg(tx, orgId, id);
    await refuseIfReferenced(tx, orgId, `The collection ${collection.name}`, {
      policy: "rag",
      collectionId: id,
    });
    await tx.delete(knowledgeCollections).where(eq(knowledgeCollections.id, id));
    return { result: { id, deleted: true as const }, details: { name: collection.name } };
  });
}
