// What every SCIM route shares: where its resources live (for `meta.location`) and the content type
// RFC 7644 §3.1 answers with.
import { scimContentType } from "#services/scim/protocol.ts";

export const baseUrlOf = (request: Request): string => `${new URL(request.url).origin}/scim/v2`;

/** Marks the answer `application/scim+json`. */
export function scimJson<T>(set: { headers: Record<string, string | number> }, body: T): T {
  set.headers["content-type"] = `${scimContentType}; charset=utf-8`;
  return body;
}

