import { t } from "elysia";

export const OrganizationMembership = t.Object({
  id: t.String(),
  name: t.String(),
  role: t.String({ description: "Your role in it" }),
  active: t.Boolean({ description: "The organization of the token you called with" }),
  joined_at: t.String({ format: "date-time" }),
});

export const PendingInvitation = t.Object({
  id: t.String({ format: "uuid" }),
  org_id: t.String({ format: "uuid" }),
  org_name: t.String(),
  role: t.String({ description: "The role the membership will have" }),
  created_at: t.String({ format: "date-time" }),
  expires_at: t.String({ format: "date-time" }),
});
