import { route } from "#server/http/route.ts";
import { schemas } from "#services/scim/discovery.ts";
import { wholeList } from "#services/scim/protocol.ts";
import { baseUrlOf, scimJson } from "./_scim.ts";

export const GET = route({
  access: "scim",
  summary: "SCIM: the attributes this service provider keeps (RFC 7643 §7)",
  handler: ({ request, set }) => scimJson(set, wholeList(schemas(baseUrlOf(request)))),
});
