import { t } from "elysia";

export const OrganizationMembership = t.Object({
  id: t.String(),
  name: t.String(),
  role: t.String({ description: "Your role in it" }),
  active: t.Boolean({ description: "The organization of the token you called with" }),
  joined_at: t.String({ format: "date-time" }),
});
