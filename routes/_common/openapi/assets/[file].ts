// The reference UI's script and style, served from node_modules: no CDN, so /openapi works offline.

import { dirname, join } from "node:path";
import { t } from "elysia";
import { notFound } from "#core/errors.ts";
import { route } from "#server/http/route.ts";

const dist = dirname(Bun.resolveSync("swagger-ui-dist/package.json", import.meta.dir));
const files: Record<string, string> = {
  "swagger-ui-bundle.js": "application/javascript",
  "swagger-ui.css": "text/css",
};

export const GET = route({
  access: "public",
  summary: "Assets of the OpenAPI reference UI",
  html: true,
  params: t.Object({ file: t.String() }),
  handler: ({ params }) => {
    const type = files[params.file];
    if (!type) throw notFound("asset");
    return new Response(Bun.file(join(dist, params.file)), {
      headers: { "content-type": type, "cache-control": "public, max-age=86400" },
    });
  },
});
