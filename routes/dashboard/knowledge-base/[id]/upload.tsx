import { t } from "elysia";
import { route } from "#server/http/route.ts";
import { type UploadedFile, uploadDocuments, uploadLimits } from "#services/knowledge-base/upload.ts";
import { attempt } from "../../_shared/form.ts";
import { collectionPage } from "./_page.tsx";

export const POST = route({
  access: "knowledge_base:write",
  summary: "Upload several documents at once from the form (all or nothing)",
  html: true,
  bodyLimit: uploadLimits.requestBytes,
  params: t.Object({ id: t.String() }),
  body: t.Record(t.String(), t.Unknown()),
  handler: async ({ ctx, params, body, request, set }) => {
    // A browser sends an empty, nameless part when no file was chosen.
    const files = [body.files]
      .flat()
      .filter((f): f is UploadedFile => f instanceof File && (f.size > 0 || f.name !== ""));
    const done = await attempt(() => uploadDocuments(ctx, { collection_id: params.id, files }));
    if (done.ok) {
      return collectionPage(ctx, request, params.id, {
        uploaded: { stored: done.value.stored, duplicates: done.value.duplicates },
      });
    }
    set.status = 422;
    // One message beside the field, naming each refused file.
    const names = files.map((f) => f.name);
    const message = Object.entries(done.errors)
      .map(([field, text]) => {
        const index = Number(field.split(".")[1]);
        return Number.isInteger(index) ? `${names[index] ?? field} ${text}` : text;
      })
      .join("; ");
    return collectionPage(ctx, request, params.id, {
      form: { errors: { files: `Nothing was stored: ${message}` } },
    });
  },
});
