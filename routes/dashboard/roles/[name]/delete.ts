import { t } from "elysia";
import { route } from "#server/http/route.ts";
import { deleteRole } from "#services/rbac/roles.ts";
import { redirectWithNotice } from "../../_shared/notice.ts";

export const POST = route({
  access: "roles:write",
  summary: "Delete a custom role nobody holds (after the page's confirmation)",
  html: true,
  params: t.Object({ name: t.String({ maxLength: 64 }) }),
  handler: async ({ ctx, params }) => {
    await deleteRole(ctx, params.name);
    return redirectWithNotice("/users", "role-deleted");
  },
});
