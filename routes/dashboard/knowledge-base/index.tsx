import { t } from "elysia";
import { route } from "#server/http/route.ts";
import { createCollection, listCollections } from "#services/knowledge-base/collections.ts";
import { CreateCollectionBody } from "#services/knowledge-base/requests.ts";
import { submitForm } from "../_shared/form.ts";
import { redirectWithNotice } from "../_shared/notice.ts";
import { pageInfo } from "../_shared/page.ts";
import { CollectionsPage } from "./_view.tsx";

export const GET = route({
  access: "knowledge_base:read",
  summary: "Knowledge-base collections page",
  html: true,
  handler: async ({ ctx, request }) => (
    <CollectionsPage
      page={await pageInfo(ctx, request)}
      collections={(await listCollections(ctx)).collections}
    />
  ),
});

export const POST = route({
  access: "knowledge_base:write",
  summary: "Create a collection from the form",
  html: true,
  body: t.Record(t.String(), t.Unknown()),
  handler: async ({ ctx, body, request, set }) => {
    const created = await submitForm(CreateCollectionBody, body, (value) => createCollection(ctx, value));
    if (created.ok) return redirectWithNotice(`/knowledge-base/${created.value.id}`, "collection-created");
    set.status = 422;
    return (
      <CollectionsPage
        page={await pageInfo(ctx, request)}
        collections={(await listCollections(ctx)).collections}
        form={{ errors: created.errors, values: body }}
      />
    );
  },
});
