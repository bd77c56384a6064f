// The public GET route of a fixed set of files served by name (the dashboard's, the OpenAPI UI's): each
// with its content type and a cache lifetime; any other name is not found, so no path reaches the disk.
import { t } from "elysia";
import { notFound } from "#core/errors.ts";
import { route } from "./route.ts";

/** A file served as an asset: where it lies and its content type. */
export interface StaticAsset {
  path: string;
  type: string;
}

export function staticAssetsRoute(
  summary: string,
  assets: Record<string, StaticAsset>,
  maxAgeSeconds: number,
) {
  return route({
    access: "public",
    summary,
    html: true,
    params: t.Object({ file: t.String() }),
    handler: ({ params }) => {
      // Own names only: "constructor" and the like are not assets.
      const asset = Object.hasOwn(assets, params.file) ? assets[params.file] : undefined;
      if (!asset) throw notFound("asset");
      return new Response(Bun.file(asset.path), {
        headers: { "content-type": asset.type, "cache-control": `public, max-age=${maxAgeSeconds}` },
      });
    },
  });
}
