// The admin dashboard as the platform starts it (server/http/gateway-description.ts): the same gateway
// machinery as the APIs, with the session cookie as credentials and sign-in instead of a JSON 401.

import { httpStatusOf } from "#server/error-table.ts";
import type { GatewayDescription, GatewayExtras } from "#server/http/gateway-description.ts";
import type { AppContext } from "#services/context.ts";
import { checkCsrf, csrfTokenOf } from "./_shared/csrf.ts";
import { errorPage } from "./_shared/error-page.tsx";
import { accessTokenOf, refreshSession } from "./_shared/refresh.ts";
import { redirect } from "./_shared/session.ts";

/**
 * Strict CSP: scripts and styles only from this origin (htmx is served from node_modules), so an
 * injected inline <script> or on* attribute is refused by the browser even if escaping ever failed.
 */
export const dashboardSecurityHeaders: Record<string, string> = {
  "content-security-policy":
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
    "object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'",
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
  "referrer-policy": "same-origin",
  "cross-origin-opener-policy": "same-origin",
  "permissions-policy": "camera=(), microphone=(), geolocation=()",
};

export const dashboardGateway: GatewayDescription = {
  name: "dashboard",
  portVariable: "DASHBOARD_PORT",
  title: "Admin dashboard",
  description: "Server-rendered administration pages.",
  sharedRoutes: (route) => !route.path.startsWith("/openapi"),
  extras: dashboardExtras,
};

function dashboardExtras(app: AppContext): GatewayExtras {
  return {
    docs: false,
    responseHeaders: dashboardSecurityHeaders,
    guardRequest: async (request, headers) => {
      const refused = await checkCsrf(request, headers);
      if (refused) return refused;
      await refreshSession(app, request, headers);
      return undefined;
    },
    credentials: (request) => ({ bearer: accessTokenOf(request) }),
    formBodies: true,
    renderProblem: (problem, request) => {
      // A client that is not a browser (no text/html in Accept, not htmx) asking for what is not here
      // gets the platform's JSON 404 (`not_found`), as on every other gateway.
      if (problem.code === "not_found" && !wantsHtml(request)) return undefined;
      const url = new URL(request.url);
      if (problem.code === "unauthenticated")
        return redirect(`/login?next=${encodeURIComponent(url.pathname + url.search)}`);
      const status = httpStatusOf(problem);
      const message =
        problem.code === "internal" ? "An unexpected error occurred; it has been logged." : problem.message;
      const html = errorPage({ status, message, csrf: csrfTokenOf(request) });
      return new Response(html, {
        status,
        headers: { "content-type": "text/html; charset=utf-8", ...dashboardSecurityHeaders },
      });
    },
  };
}

const wantsHtml = (request: Request) =>
  request.headers.has("hx-request") || (request.headers.get("accept") ?? "").includes("text/html");
