import { t } from "elysia";
import { Collection } from "#routes/filtration/_schemas/knowledge-base.ts";
import { route } from "#server/http/route.ts";
import { createCollection, listCollections } from "#services/knowledge-base/collections.ts";
import { CreateCollectionBody } from "#services/knowledge-base/requests.ts";

export const GET = route({
  access: "knowledge_base:read",
  summary: "The knowledge-base collections of your organization",
  response: t.Object({ collections: t.Array(Collection) }),
  handler: ({ ctx }) => listCollections(ctx),
});

export const POST = route({
  access: "knowledge_base:write",
  summary: "Create a knowledge-base collection (409 for a name taken)",
  body: CreateCollectionBody,
  status: 201,
  response: Collection,
  handler: ({ ctx, body }) => createCollection(ctx, body),
});
