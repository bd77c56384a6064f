import { route } from "#server/http/route.ts";
import { resourceTypes } from "#services/scim/discovery.ts";
import { listSchema } from "#services/scim/protocol.ts";
import { baseUrlOf, scimJson } from "./_scim.ts";

export const GET = route({
  access: "scim",
  summary: "SCIM: the resource types, User and Group (RFC 7644 §4)",
  handler: ({ request, set }) => {
    const types = resourceTypes(baseUrlOf(request));
    return scimJson(set, {
      schemas: [listSchema],
      totalResults: types.length,
      startIndex: 1,
      itemsPerPage: types.length,
      Resources: types,
    });
  },
});
