import { t } from "elysia";
import { route } from "#server/http/route.ts";
import { deleteScimGroup, getScimGroup, patchScimGroup } from "#services/scim/groups.ts";
import { ScimGroup, ScimPatch } from "#services/scim/protocol.ts";
import { baseUrlOf, scimJson } from "../_scim.ts";

const params = t.Object({ id: t.String() });

export const GET = route({
  access: "scim",
  summary: "SCIM: one group (role) and its members",
  params,
  response: ScimGroup,
  errors: [404],
  handler: async ({ ctx, params, request, set }) =>
    scimJson(set, await getScimGroup(ctx, params.id, baseUrlOf(request))),
});

export const PATCH = route({
  access: "scim",
  summary: "SCIM: add or remove members (they get the role; removed ones get the default role)",
  params,
  body: ScimPatch,
  parse: "json",
  response: ScimGroup,
  errors: [404],
  handler: async ({ ctx, params, body, request, set }) =>
    scimJson(set, await patchScimGroup(ctx, params.id, body, baseUrlOf(request))),
});

export const DELETE = route({
  access: "scim",
  summary: "SCIM: delete a group (a custom role; its members get the default role)",
  params,
  errors: [404, 409],
  handler: async ({ ctx, params }) => {
    await deleteScimGroup(ctx, params.id);
    return new Response(null, { status: 204 });
  },
});
