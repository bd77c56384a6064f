import { route } from "#server/http/route.ts";
import { listResponseOf, ScimUser, ScimUserInput } from "#services/scim/protocol.ts";
import { createScimUser, listScimUsers } from "#services/scim/users.ts";
import { baseUrlOf, ListQuery, scimCreated, scimJson } from "../_scim.ts";

export const GET = route({
  access: "scim",
  summary: "SCIM: list the organization's users (filter, startIndex, count)",
  description:
    'RFC 7644 §3.4.2. `filter` takes the RFC\'s grammar (e.g. `userName eq "bjensen@example.com"`, ' +
    '`externalId eq "..."`, `displayName eq "..."`); `count` is capped at 200.',
  query: ListQuery,
  response: listResponseOf(ScimUser),
  handler: async ({ ctx, query, request, set }) =>
    scimJson(set, await listScimUsers(ctx, query, baseUrlOf(request))),
});

export const POST = route({
  access: "scim",
  summary: "SCIM: provision a user in the organization",
  body: ScimUserInput,
  parse: "json",
  status: 201,
  response: ScimUser,
  errors: [409],
  handler: async ({ ctx, body, request, set }) =>
    scimCreated(set, await createScimUser(ctx, body, baseUrlOf(request))),
});
