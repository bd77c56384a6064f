import { t } from "elysia";
import { route } from "#server/http/route.ts";
import { setUserRole } from "#services/rbac/users.ts";
import { attempt } from "../../_shared/form.ts";
import { redirectWithNotice } from "../../_shared/notice.ts";
import { usersPage } from "../_page.tsx";

export const POST = route({
  access: "users:write",
  summary: "Change a user's role",
  html: true,
  params: t.Object({ id: t.String() }),
  body: t.Object({ role: t.String({ maxLength: 64 }) }),
  handler: async ({ ctx, params, body, request, set }) => {
    const done = await attempt(() => setUserRole(ctx, params.id, body.role));
    if (done.ok) return redirectWithNotice("/users", "role-changed");
    set.status = 422;
    return usersPage(ctx, request, {
      form: `user:${params.id}`,
      state: { errors: { _form: Object.values(done.errors).join(" ") } },
    });
  },
});
