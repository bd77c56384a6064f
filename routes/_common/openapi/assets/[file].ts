// The reference UI's script and style, served from node_modules: no CDN, so /openapi works offline.

import { dirname, join } from "node:path";
import { staticAssetsRoute } from "#server/http/static-assets.ts";

const dist = dirname(Bun.resolveSync("swagger-ui-dist/package.json", import.meta.dir));

export const GET = staticAssetsRoute(
  "Assets of the OpenAPI reference UI",
  {
    "swagger-ui-bundle.js": { path: join(dist, "swagger-ui-bundle.js"), type: "application/javascript" },
    "swagger-ui.css": { path: join(dist, "swagger-ui.css"), type: "text/css" },
  },
  86_400,
);
