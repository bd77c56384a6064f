import { route } from "#server/http/route.ts";
import { signOutTokens } from "#services/auth/sign-out.ts";
import { accessTokenOf } from "./_shared/refresh.ts";
import { clearedCookies, readCookie, redirect, refreshCookie } from "./_shared/session.ts";

export const POST = route({
  access: "public",
  summary: "Sign out",
  description:
    "Ends the session of the cookies (its access and refresh tokens stop working) and clears them.",
  html: true,
  handler: async ({ ctx, request }) => {
    await signOutTokens(ctx, { access: accessTokenOf(request), refresh: readCookie(request, refreshCookie) });
    return redirect("/login", clearedCookies(request));
  },
});
