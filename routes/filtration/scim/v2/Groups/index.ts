import { route } from "#server/http/route.ts";
import { createScimGroup, listScimGroups } from "#services/scim/groups.ts";
import { listResponseOf, ScimGroup, ScimGroupInput } from "#services/scim/protocol.ts";
import { baseUrlOf, ListQuery, scimCreated, scimJson } from "../_scim.ts";

export const GET = route({
  access: "scim",
  summary: "SCIM: list groups (the organization's roles) with their members",
  query: ListQuery,
  response: listResponseOf(ScimGroup),
  handler: async ({ ctx, query, request, set }) =>
    scimJson(set, await listScimGroups(ctx, query, baseUrlOf(request))),
});

export const POST = route({
  access: "scim",
  summary: "SCIM: create a group: a custom role without permissions, with its members",
  body: ScimGroupInput,
  parse: "json",
  status: 201,
  response: ScimGroup,
  errors: [409],
  handler: async ({ ctx, body, request, set }) =>
    scimCreated(set, await createScimGroup(ctx, body, baseUrlOf(request))),
});
