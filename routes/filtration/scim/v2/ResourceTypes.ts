import { route } from "#server/http/route.ts";
import { resourceTypes } from "#services/scim/discovery.ts";
import { wholeList } from "#services/scim/protocol.ts";
import { baseUrlOf, scimJson } from "./_scim.ts";

export const GET = route({
  access: "scim",
  summary: "SCIM: the resource types, User and Group (RFC 7644 §4)",
  handler: ({ request, set }) => scimJson(set, wholeList(resourceTypes(baseUrlOf(request)))),
});
