// A gateway's OpenAPI: Swagger UI at /openapi, and /openapi/json, the generated document completed
// (server/http/openapi.ts) and built once, on first request, when every route is in place.

import { openapi, toOpenAPISchema } from "@elysiajs/openapi";
import type { AnyElysia } from "elysia";
import type { JsonObject } from "#core/json.ts";
import type { GatewayOptions } from "./gateway-options.ts";
import { completeDocument } from "./openapi.ts";

/** The Swagger UI plugin, used before the routes are mounted. */
export function docsPlugin(options: GatewayOptions) {
  return openapi({
    path: "/openapi",
    provider: "swagger-ui",
    swagger: { cdn: "/openapi/assets/swagger-ui-bundle.js", theme: "/openapi/assets/swagger-ui.css" },
    documentation: { info: { title: options.title, description: options.description, version: "1.0.0" } },
  });
}

/** Registered after the plugin and the routes, so this answers /openapi/json. */
export function mountDocument(gateway: AnyElysia, options: GatewayOptions): void {
  let document: JsonObject | undefined;
  gateway.get(
    "/openapi/json",
    () =>
      (document ??= completeDocument(
        {
          openapi: "3.1.2",
          info: { title: options.title, description: options.description, version: "1.0.0" },
          ...toOpenAPISchema(gateway, { paths: [/^\/openapi/] }),
        },
        {
          style: options.errorStyle ?? "platform",
          routes: options.routes,
          defaultPort: options.app.config.ports[options.name],
        },
      )),
    { detail: { hide: true } },
  );
}
