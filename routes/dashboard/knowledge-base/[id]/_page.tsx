// A collection's page with its documents, for its GET and for an upload that comes back.
import type { RequestContext } from "#services/context.ts";
import { collectionOfOrg } from "#services/knowledge-base/collections.ts";
import { listDocuments } from "#services/knowledge-base/documents.ts";
import { pageInfo } from "../../_shared/page.ts";
import type { FormState } from "../../_shared/parts/form.tsx";
import { CollectionPage } from "../_view.tsx";

export async function collectionPage(
  ctx: RequestContext,
  request: Request,
  collectionId: string,
  extra: { form?: FormState; uploaded?: { stored: number; duplicates: number } } = {},
): Promise<JSX.Element> {
  const page = await pageInfo(ctx, request);
  const row = await collectionOfOrg(ctx.db, page.actor.orgId, collectionId);
  const { documents } = await listDocuments(ctx, row.id);
  const collection = {
    id: row.id,
    name: row.name,
    description: row.description,
    document_count: documents.length,
    created_at: row.createdAt.toISOString(),
  };
  return <CollectionPage page={page} collection={collection} documents={documents} {...extra} />;
}
