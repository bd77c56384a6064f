import { clearedCookies, redirect } from "../../server/dashboard-session.ts";
import { route } from "../../server/http/route.ts";

export const POST = route({
  access: "public",
  summary: "Sign out",
  html: true,
  handler: ({ request }) => redirect("/login", clearedCookies(request)),
});
