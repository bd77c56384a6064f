import { t } from "elysia";

export const Role = t.Object({
  name: t.String(),
  description: t.String(),
  permissions: t.Array(t.String(), { description: "resource:action, from /admin/roles/permissions/list" }),
  builtin: t.Boolean({ description: "admin, developer and viewer: fixed" }),
  user_count: t.Integer({ description: "Members holding it" }),
  created_at: t.String({ format: "date-time" }),
  updated_at: t.String({ format: "date-time" }),
});

export const OrganizationUser = t.Object({
  id: t.String(),
  email: t.String(),
  role: t.String(),
  totp_enabled: t.Boolean(),
  joined_at: t.String({ format: "date-time" }),
});

export const PendingMember = t.Object({
  id: t.String({ description: "The invitation's id (what POST /admin/users answered)" }),
  email: t.String(),
  role: t.String(),
  invited_at: t.String({ format: "date-time" }),
  expires_at: t.String({ format: "date-time" }),
});
