import { t } from "elysia";
import { route } from "#server/http/route.ts";
import { CreateRoleBody } from "#services/rbac/requests.ts";
import { createRole } from "#services/rbac/roles.ts";
import { submitForm } from "../_shared/form.ts";
import { redirectWithNotice } from "../_shared/notice.ts";
import { usersPage } from "../users/_page.tsx";

export const POST = route({
  access: "roles:write",
  summary: "Create a role from the form",
  html: true,
  body: t.Record(t.String(), t.Unknown()),
  handler: async ({ ctx, body, request, set }) => {
    const created = await submitForm(
      CreateRoleBody,
      { permissions: [], ...body },
      (value) => createRole(ctx, value),
      { arrays: ["permissions"] },
    );
    if (created.ok) return redirectWithNotice("/users", "role-created");
    set.status = 422;
    return usersPage(ctx, request, { form: "new-role", state: { errors: created.errors, values: body } });
  },
});
