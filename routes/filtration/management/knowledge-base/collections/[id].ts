import { t } from "elysia";
import { route } from "#server/http/route.ts";
import { deleteCollection } from "#services/knowledge-base/collections.ts";

export const DELETE = route({
  access: "knowledge_base:write",
  summary: "Delete a collection with its documents and their passages",
  description: "409 while a `rag` policy lists it (the message names the deployments).",
  params: t.Object({ id: t.String() }),
  response: t.Object({ id: t.String(), deleted: t.Literal(true) }),
  handler: ({ ctx, params }) => deleteCollection(ctx, params.id),
});
