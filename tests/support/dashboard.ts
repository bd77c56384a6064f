// The dashboard in process, as a browser speaks to it: the CSRF token of the sign-in page, form posts
// carrying it, and the session cookies a sign-in sets.
import { csrfCookie } from "#routes/dashboard/_shared/csrf.ts";
import { adminEmail, adminPassword, type Handler } from "./app.ts";

/** The CSRF token a response sets in its cookie ("" without one). */
export const csrfOf = (res: Response): string =>
  new RegExp(`${csrfCookie}=([^;]+)`).exec(res.headers.get("set-cookie") ?? "")?.[1] ?? "";

/** The cookies a response sets, as a `cookie` header sends them back. */
export const sessionOf = (res: Response): string =>
  res.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");

/** A form POST to the dashboard with `cookie` as its cookie header. */
export const postForm = (handle: Handler, path: string, fields: Record<string, string>, cookie: string) =>
  handle(
    new Request(`http://localhost${path}`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", cookie },
      body: new URLSearchParams(fields).toString(),
    }),
  );

export interface DashboardSession {
  /** The sign-in's HTTP status (303 when it worked). */
  status: number;
  csrf: string;
  /** The cookies the sign-in set. */
  session: string;
  /** `session` and the CSRF cookie: what a signed-in browser sends. */
  cookie: string;
}

/** Signs the built-in administrator in through the dashboard's form, as a browser would. */
export async function signInToDashboard(handle: Handler): Promise<DashboardSession> {
  const csrf = csrfOf(await handle(new Request("http://localhost/login")));
  const login = await postForm(
    handle,
    "/login",
    { email: adminEmail, password: adminPassword, _csrf: csrf },
    `${csrfCookie}=${csrf}`,
  );
  const session = sessionOf(login);
  return { status: login.status, csrf, session, cookie: `${session}; ${csrfCookie}=${csrf}` };
}
