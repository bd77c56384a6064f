// What every SCIM route shares: where its resources live (for `meta.location`) and the content type
// RFC 7644 §3.1 answers with.
import { t } from "elysia";
import { scimContentType } from "#services/scim/protocol.ts";

/** RFC 7644 §3.4.2's list parameters (query strings: Elysia's integers decode "2"). */
export const ListQuery = t.Object({
  filter: t.Optional(t.String({ maxLength: 1024 })),
  startIndex: t.Optional(t.Integer({ minimum: 1 })),
  count: t.Optional(t.Integer({ minimum: 0 })),
});

export const baseUrlOf = (request: Request): string => `${new URL(request.url).origin}/scim/v2`;

/** Marks the answer `application/scim+json`. */
export function scimJson<T>(set: { headers: Record<string, string | number> }, body: T): T {
  set.headers["content-type"] = `${scimContentType}; charset=utf-8`;
  return body;
}

/** A resource just created: its `meta.location` as the Location header, the body as SCIM JSON. */
export function scimCreated<T extends { meta: { location: string } }>(
  set: { headers: Record<string, string | number> },
  resource: T,
): T {
  set.headers.location = resource.meta.location;
  return scimJson(set, resource);
}
