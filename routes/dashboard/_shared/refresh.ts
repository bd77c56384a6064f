// Silent session refresh: when the access cookie is missing or expired but the refresh cookie is
// valid, the refresh token is exchanged (the same rotation as POST /auth/refresh) before routing, the
// request is served with the new access token and the browser gets the new cookies.
import { refresh } from "#services/auth/refresh.ts";
import { verifyToken } from "#services/auth/tokens.ts";
import type { AppContext } from "#services/context.ts";
import type { ResponseHeaders } from "./csrf.ts";
import { accessCookie, readCookie, refreshCookie, sessionCookies } from "./session.ts";

const refreshedAccess = new WeakMap<Request, string>();

/** The access token the request is served with: a freshly refreshed one, else the cookie's. */
export const accessTokenOf = (request: Request): string | undefined =>
  refreshedAccess.get(request) ?? readCookie(request, accessCookie);

async function isLive(app: AppContext, token: string | undefined): Promise<boolean> {
  if (!token) return false;
  try {
    await verifyToken(app.config.jwtSecret, token, "access", app.clock());
    return true;
  } catch {
    return false;
  }
}

export async function refreshSession(
  app: AppContext,
  request: Request,
  headers: ResponseHeaders,
): Promise<void> {
  const refreshToken = readCookie(request, refreshCookie);
  if (!refreshToken || (await isLive(app, readCookie(request, accessCookie)))) return;
  try {
    const session = await refresh(app, refreshToken);
    refreshedAccess.set(request, session.access_token);
    const previous = headers["set-cookie"];
    const kept = typeof previous === "string" ? [previous] : Array.isArray(previous) ? previous : [];
    headers["set-cookie"] = [...kept, ...sessionCookies(request, session)];
  } catch {
    // A dead refresh token: the request goes on unauthenticated and the page redirects to sign-in.
  }
}
