import { t } from "elysia";
import { notFound } from "#core/errors.ts";
import { route } from "#server/http/route.ts";
import { Layout } from "../_shared/layout.tsx";
import { pageInfo } from "../_shared/page.ts";
import { docNames, readDoc, renderDoc } from "./_render.ts";

export const GET = route({
  access: "authenticated",
  summary: "One of the platform's guides (docs/*.md), rendered",
  html: true,
  params: t.Object({ file: t.String({ maxLength: 64 }) }),
  handler: async ({ ctx, params, request }) => {
    if (!docNames().includes(params.file)) throw notFound("guide");
    // micromark escaped every HTML tag of the source: this is its own markup only (hence "safe").
    const safeHtml = renderDoc(readDoc(params.file));
    return (
      <Layout title={params.file} page={await pageInfo(ctx, request)}>
        <article class="card doc">{safeHtml}</article>
      </Layout>
    );
  },
});
