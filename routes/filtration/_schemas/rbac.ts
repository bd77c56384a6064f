import { t } from "elysia";
import { roleNamePattern } from "../../../services/rbac/roles.ts";

export const RoleName = t.String({
  pattern: roleNamePattern,
  description: "Lower-case letters, digits, _ and -",
});

export const Role = t.Object({
  name: t.String(),
  description: t.String(),
  permissions: t.Array(t.String(), { description: "resource:action, from /admin/roles/permissions/list" }),
  builtin: t.Boolean({ description: "admin, developer and viewer: fixed" }),
  user_count: t.Integer({ description: "Members holding it" }),
  created_at: t.String({ format: "date-time" }),
  updated_at: t.String({ format: "date-time" }),
});

export const Permissions = t.Array(t.String({ maxLength: 64 }), { maxItems: 100 });

export const OrganizationUser = t.Object({
  id: t.String(),
  email: t.String(),
  role: t.String(),
  totp_enabled: t.Boolean(),
  joined_at: t.String({ format: "date-time" }),
});

/** The body of POST /admin/users, and the dashboard's add-user form. */
export const AddUserBody = t.Object({
  email: t.String({ minLength: 3, maxLength: 254 }),
  password: t.Optional(t.String({ maxLength: 1024, description: "A new account's first password" })),
  role: t.String({ minLength: 1, maxLength: 64 }),
});

/** The body of POST /admin/roles, and the dashboard's create-role form. */
export const CreateRoleBody = t.Object({
  name: RoleName,
  description: t.Optional(t.String({ maxLength: 500 })),
  permissions: Permissions,
});
