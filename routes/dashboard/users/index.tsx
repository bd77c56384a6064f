import { t } from "elysia";
import { route } from "#server/http/route.ts";
import { AddUserBody } from "#services/rbac/requests.ts";
import { addUser } from "#services/rbac/users.ts";
import { submitForm } from "../_shared/form.ts";
import { redirectWithNotice } from "../_shared/notice.ts";
import { usersPage } from "./_page.tsx";

export const GET = route({
  access: "users:read",
  summary: "Users and roles page",
  html: true,
  handler: ({ ctx, request }) => usersPage(ctx, request),
});

export const POST = route({
  access: "users:write",
  summary: "Add a user from the form",
  html: true,
  body: t.Record(t.String(), t.Unknown()),
  handler: async ({ ctx, body, request, set }) => {
    const added = await submitForm(AddUserBody, body, (value) => addUser(ctx, value));
    if (added.ok) return redirectWithNotice("/users", "user-added");
    set.status = 422;
    const { password: _never, ...values } = body;
    return usersPage(ctx, request, { form: "add", state: { errors: added.errors, values } });
  },
});
