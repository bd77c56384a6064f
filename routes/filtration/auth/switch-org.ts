import { t } from "elysia";
import { route } from "#server/http/route.ts";
import { switchOrganization } from "#services/auth/organizations.ts";
import { Session } from "../_schemas/auth.ts";

export const POST = route({
  access: "authenticated",
  summary: "New tokens for another organization you belong to",
  description: "404 for an organization you do not belong to, whether it exists or not.",
  body: t.Object({ org_id: t.String({ format: "uuid" }) }),
  response: Session,
  handler: ({ ctx, body }) => switchOrganization(ctx, body.org_id),
});
