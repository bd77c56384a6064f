// CSRF protection of the dashboard: a random token in an httpOnly SameSite=Strict cookie that every
// state-changing request must echo, as the X-CSRF-Token header (htmx, see assets/dashboard.js) or as
// the `_csrf` field of a plain form. A cross-site page can neither read the cookie nor set the header.
import { randomBytes, timingSafeEqual } from "node:crypto";
import { readCookie } from "./session.ts";

export const csrfCookie = "llmp_csrf";
export const csrfHeader = "x-csrf-token";
export const csrfField = "_csrf";

const safeMethods = new Set(["GET", "HEAD", "OPTIONS"]);
/** The token of a request, issued when the browser had none; pages put it in forms and the meta tag. */
const issued = new WeakMap<Request, string>();

export const csrfTokenOf = (request: Request): string =>
  issued.get(request) ?? readCookie(request, csrfCookie) ?? "";

const sameToken = (a: string, b: string) =>
  a.length === b.length && a.length > 0 && timingSafeEqual(Buffer.from(a), Buffer.from(b));

async function submittedToken(request: Request): Promise<string> {
  const header = request.headers.get(csrfHeader);
  if (header) return header;
  const type = request.headers.get("content-type") ?? "";
  if (!type.startsWith("application/x-www-form-urlencoded") && !type.startsWith("multipart/form-data"))
    return "";
  const value = (await request.clone().formData()).get(csrfField);
  return typeof value === "string" ? value : "";
}

/** The response's headers as the gateway builds them: `set-cookie` is one value or a list of them. */
export interface ResponseHeaders {
  "set-cookie"?: unknown;
  [name: string]: unknown;
}

/** 403 for a state-changing request without the token; issues the cookie on a first visit. */
export async function checkCsrf(request: Request, headers: ResponseHeaders): Promise<Response | undefined> {
  const cookie = readCookie(request, csrfCookie);
  if (safeMethods.has(request.method)) {
    if (!cookie) {
      const token = randomBytes(24).toString("base64url");
      issued.set(request, token);
      const secure = new URL(request.url).protocol === "https:" ? "; Secure" : "";
      headers["set-cookie"] = `${csrfCookie}=${token}; Path=/; HttpOnly; SameSite=Strict${secure}`;
    }
    return undefined;
  }
  if (request.headers.get("upgrade")?.toLowerCase() === "websocket") return undefined;
  if (cookie && sameToken(cookie, await submittedToken(request))) return undefined;
  return new Response("Forbidden: missing or invalid CSRF token. Reload the page and try again.", {
    status: 403,
    headers: { "content-type": "text/plain; charset=utf-8" },
  });
}
