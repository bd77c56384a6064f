import { t } from "elysia";
import { route } from "#server/http/route.ts";
import { updateRole } from "#services/rbac/roles.ts";
import { attempt } from "../../_shared/form.ts";
import { redirectWithNotice } from "../../_shared/notice.ts";
import { usersPage } from "../../users/_page.tsx";

export const POST = route({
  access: "roles:write",
  summary: "Save a custom role's permissions (the ticked boxes)",
  html: true,
  params: t.Object({ name: t.String({ maxLength: 64 }) }),
  body: t.Object({ permissions: t.Optional(t.Union([t.String(), t.Array(t.String())])) }),
  handler: async ({ ctx, params, body, request, set }) => {
    const permissions = body.permissions === undefined ? [] : [body.permissions].flat();
    const done = await attempt(() => updateRole(ctx, params.name, { permissions }));
    if (done.ok) return redirectWithNotice(`/users#role-${params.name}`, "role-saved");
    set.status = 422;
    return usersPage(ctx, request, {
      form: `role:${params.name}`,
      state: { errors: done.errors, values: { permissions } },
    });
  },
});
