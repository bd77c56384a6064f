import { t } from "elysia";
import { route } from "#server/http/route.ts";
import { listMyOrganizations } from "#services/auth/organizations.ts";
import { OrganizationMembership } from "../_schemas/organizations.ts";

export const GET = route({
  access: "authenticated",
  summary: "The organizations you belong to, your role in each, and which one is active",
  response: t.Object({ organizations: t.Array(OrganizationMembership) }),
  handler: ({ ctx }) => listMyOrganizations(ctx),
});
