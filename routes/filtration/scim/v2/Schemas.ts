import { route } from "#server/http/route.ts";
import { schemas } from "#services/scim/discovery.ts";
import { listSchema } from "#services/scim/protocol.ts";
import { baseUrlOf, scimJson } from "./_scim.ts";

export const GET = route({
  access: "scim",
  summary: "SCIM: the attributes this service provider keeps (RFC 7643 §7)",
  handler: ({ request, set }) => {
    const all = schemas(baseUrlOf(request));
    return scimJson(set, {
      schemas: [listSchema],
      totalResults: all.length,
      startIndex: 1,
      itemsPerPage: all.length,
      Resources: all,
    });
  },
});
