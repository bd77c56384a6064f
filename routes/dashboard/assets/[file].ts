// Static assets of the dashboard: htmx from node_modules (never a CDN), and our stylesheet, script and
// icon, which sit beside this file as they sit in the URL (/assets/app.css).

import { join } from "node:path";
import { type StaticAsset, staticAssetsRoute } from "#server/http/static-assets.ts";

const assets: Record<string, StaticAsset> = {
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

export const GET = staticAssetsRoute("Dashboard assets", assets, 3600);
