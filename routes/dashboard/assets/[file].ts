// Static assets of the dashboard: htmx from node_modules (never a CDN), and our stylesheet, script and
// icon, which sit beside this file as they sit in the URL (/assets/app.css).

import { join } from "node:path";
import { t } from "elysia";
import { notFound } from "#core/errors.ts";
import { route } from "#server/http/route.ts";

const assets: Record<string, { path: string; type: string }> = {
  "htmx.js": {
    path: Bun.resolveSync("htmx.org/dist/htmx.min.js", import.meta.dir),
    type: "application/javascript",
  },
  "dashboard.js": {
    path: join(import.meta.dir, "dashboard.js"),
    type: "application/javascript",
  },
  "favicon.svg": {
    path: join(import.meta.dir, "favicon.svg"),
    type: "image/svg+xml",
  },
  "app.css": { path: join(import.meta.dir, "app.css"), type: "text/css" },
};

export const GET = route({
  access: "public",
  summary: "Dashboard assets",
  html: true,
  params: t.Object({ file: t.String() }),
  handler: ({ params }) => {
    const asset = assets[params.file];
    if (!asset) throw notFound("asset");
    return new Response(Bun.file(asset.path), {
      headers: { "content-type": asset.type, "cache-control": "public, max-age=3600" },
    });
  },
});
