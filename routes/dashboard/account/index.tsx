import { t } from "elysia";
import { route } from "#server/http/route.ts";
import { listMyInvitations } from "#services/auth/invitations.ts";
import { me } from "#services/auth/me.ts";
import { pageInfo } from "../_shared/page.ts";
import { AccountPage } from "./_view.tsx";

const notices: Record<string, string> = {
  on: "Two-factor sign-in is on: the next sign-in asks for a code.",
  off: "Two-factor sign-in is off.",
  joined: "Invitation accepted: switch to the organization with the selector at the top.",
  declined: "Invitation declined.",
  gone: "That invitation is no longer open.",
  password: "Password changed: your other sessions are signed out.",
};

export const GET = route({
  access: "authenticated",
  summary: "Your account, two-factor sign-in and invitations to other organizations",
  html: true,
  query: t.Object({ done: t.Optional(t.String({ maxLength: 8 })) }),
  handler: async ({ ctx, request, query }) => (
    <AccountPage
      page={await pageInfo(ctx, request)}
      me={await me(ctx)}
      invitations={(await listMyInvitations(ctx)).invitations}
      notice={notices[query.done ?? ""]}
    />
  ),
});
