import { t } from "elysia";
import { route } from "#server/http/route.ts";
import { ScimPatch, ScimUser, ScimUserInput } from "#services/scim/protocol.ts";
import { deleteScimUser, getScimUser, patchScimUser, replaceScimUser } from "#services/scim/users.ts";
import { baseUrlOf, scimJson } from "../_scim.ts";

const params = t.Object({ id: t.String() });

export const GET = route({
  access: "scim",
  summary: "SCIM: one user",
  params,
  response: ScimUser,
  errors: [404],
  handler: async ({ ctx, params, request, set }) =>
    scimJson(set, await getScimUser(ctx, params.id, baseUrlOf(request))),
});

export const PUT = route({
  access: "scim",
  summary: "SCIM: replace a user (attributes left out are cleared; `active` defaults to true)",
  params,
  body: ScimUserInput,
  parse: "json",
  response: ScimUser,
  errors: [404, 409],
  handler: async ({ ctx, params, body, request, set }) =>
    scimJson(set, await replaceScimUser(ctx, params.id, body, baseUrlOf(request))),
});

export const PATCH = route({
  access: "scim",
  summary: "SCIM: change a user's attributes (`active: false` deactivates: sessions and API keys end)",
  params,
  body: ScimPatch,
  parse: "json",
  response: ScimUser,
  errors: [404, 409],
  handler: async ({ ctx, params, body, request, set }) =>
    scimJson(set, await patchScimUser(ctx, params.id, body, baseUrlOf(request))),
});

export const DELETE = route({
  access: "scim",
  summary: "SCIM: remove a user from the organization (the account stays for its other organizations)",
  params,
  errors: [404],
  handler: async ({ ctx, params }) => {
    await deleteScimUser(ctx, params.id);
    return new Response(null, { status: 204 });
  },
});
