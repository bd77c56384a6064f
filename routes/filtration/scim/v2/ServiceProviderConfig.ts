import { route } from "#server/http/route.ts";
import { serviceProviderConfig } from "#services/scim/discovery.ts";
import { baseUrlOf, scimJson } from "./_scim.ts";

export const GET = route({
  access: "scim",
  summary: "SCIM: what this service provider supports (RFC 7644 §4)",
  handler: ({ request, set }) => scimJson(set, serviceProviderConfig(baseUrlOf(request))),
});
