// The dashboard's session: the same access and refresh tokens as the API, in httpOnly cookies.
import type { Session } from "#services/auth/session.ts";

export const accessCookie = "llmp_session";
export const refreshCookie = "llmp_refresh";
/** Between the two steps of a two-factor sign-in: proof that the password was right (5 minutes). */
export const secondFactorCookie = "llmp_2fa";

/**
 * A cookie's value, through Bun's own parser. Bun decodes a broken percent-escape (`%E0%A4%A`) to
 * U+FFFD rather than throwing; every cookie we set is ASCII, so such a value is none of ours and is
 * treated as absent (sign-in page, or 403 from the CSRF check) instead of failing the request.
 */
export function readCookie(request: Request, name: string): string | undefined {
  const header = request.headers.get("cookie");
  if (!header) return undefined;
  const value = new Bun.CookieMap(header).get(name);
  return value === null || value.includes("\uFFFD") ? undefined : value;
}

const secureFlag = (request: Request) =>
  new URL(request.url).protocol === "https:" || request.headers.get("x-forwarded-proto") === "https"
    ? "; Secure"
    : "";

const cookie = (request: Request, name: string, value: string, maxAge: number, path = "/") =>
  `${name}=${encodeURIComponent(value)}; Path=${path}; HttpOnly; SameSite=Strict; Max-Age=${maxAge}${secureFlag(request)}`;

export const secondFactorCookies = (request: Request, token: string | undefined): string[] => [
  cookie(request, secondFactorCookie, token ?? "", token ? 300 : 0, "/login"),
];

export const sessionCookies = (request: Request, session: Session): string[] => [
  cookie(request, accessCookie, session.access_token, 7 * 24 * 3600),
  cookie(request, refreshCookie, session.refresh_token, 7 * 24 * 3600),
];

export const clearedCookies = (request: Request): string[] => [
  cookie(request, accessCookie, "", 0),
  cookie(request, refreshCookie, "", 0),
];

const HERE = "http://dashboard.invalid";

/**
 * Where sign-in may send the browser back to: a path of this dashboard, nothing else. The value is read
 * as a browser reads a Location header (WHATWG URL: backslashes are slashes, tabs and line breaks are
 * dropped), so "/\\evil.example" or "/<tab>/evil.example", which a browser resolves to another host,
 * are refused as "//evil" and absolute URLs are; what is sent back is the path as parsed.
 */
export function safeNext(next: string | undefined): string {
  if (!next?.startsWith("/")) return "/";
  let url: URL;
  try {
    url = new URL(next, HERE);
  } catch {
    return "/";
  }
  if (url.origin !== HERE) return "/";
  const path = `${url.pathname}${url.search}${url.hash}`;
  // Re-read: a path that itself begins with "//" would name a host in the header.
  return path.startsWith("//") || path.startsWith("/\\") ? "/" : path;
}

export function redirect(location: string, cookies: string[] = []): Response {
  const headers = new Headers({ location });
  for (const c of cookies) headers.append("set-cookie", c);
  return new Response(null, { status: 303, headers });
}
