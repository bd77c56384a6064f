import { t } from "elysia";
import { route } from "#server/http/route.ts";
import { collectionPage } from "./_page.tsx";

export const GET = route({
  access: "knowledge_base:read",
  summary: "A collection's documents and its upload form",
  html: true,
  params: t.Object({ id: t.String() }),
  handler: ({ ctx, request, params }) => collectionPage(ctx, request, params.id),
});
