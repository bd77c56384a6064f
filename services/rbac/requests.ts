// Requests that more than one entry point takes (the admin API and the dashboard's forms).
import { Type as T } from "@sinclair/typebox";
import { roleNamePattern } from "./roles.ts";

export const RoleName = T.String({
  pattern: roleNamePattern,
  description: "Lower-case letters, digits, _ and -",
});

export const Permissions = T.Array(T.String({ maxLength: 64 }), { maxItems: 100 });

/** The body of POST /admin/users, and the dashboard's add-user form. */
export const AddUserBody = T.Object({
  email: T.String({ minLength: 3, maxLength: 254 }),
  // Required for everyone, so that leaving it out answers alike whether or not the e-mail has an account.
  password: T.String({
    maxLength: 1024,
    description: "A new account's first password; required also for an existing account, which keeps its own",
  }),
  role: T.String({ minLength: 1, maxLength: 64 }),
});

/** The body of POST /admin/roles, and the dashboard's create-role form. */
export const CreateRoleBody = T.Object({
  name: RoleName,
  description: T.Optional(T.String({ maxLength: 500 })),
  permissions: Permissions,
});
