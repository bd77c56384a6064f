import { t } from "elysia";
import { route } from "#server/http/route.ts";
import { changePassword } from "#services/auth/change-password.ts";
import { me } from "#services/auth/me.ts";
import type { Session } from "#services/auth/session.ts";
import { attempt, type FormResult } from "../_shared/form.ts";
import { pageInfo } from "../_shared/page.ts";
import { redirect, sessionCookies } from "../_shared/session.ts";
import { AccountPage } from "./_view.tsx";

const field = t.String({ maxLength: 256 });

export const POST = route({
  access: "authenticated",
  summary: "Change your password with the current one (as POST /auth/password): ends your other sessions",
  html: true,
  body: t.Object({ current_password: field, new_password: field, confirm_password: field }),
  handler: async ({ ctx, body, request, set }) => {
    const changed: FormResult<Session> =
      body.new_password !== body.confirm_password
        ? { ok: false, errors: { confirm_password: "does not match the new password" } }
        : body.current_password === ""
          ? { ok: false, errors: { current_password: "is required" } }
          : await attempt(() =>
              changePassword(ctx, {
                current_password: body.current_password,
                new_password: body.new_password,
              }),
            );
    // Every session of the user was just revoked, this one too: the browser carries on with the new one.
    if (changed.ok) return redirect("/account?done=password", sessionCookies(request, changed.value));
    set.status = 422;
    return (
      <AccountPage
        page={await pageInfo(ctx, request)}
        me={await me(ctx)}
        passwordForm={{ errors: changed.errors }}
      />
    );
  },
});
