import type { Children } from "@kitajs/html";

export interface LayoutProps {
  title: string;
  children?: Children;
  /** The signed-in user's e-mail, shown in the header. */
  user?: string | undefined;
  /** The CSRF token: in a meta tag for htmx (views/dashboard.js) and in every plain form. */
  csrf: string;
}

export function Layout({ title, children, user, csrf }: LayoutProps) {
  return (
    <>
      {"<!doctype html>"}
      <html lang="en">
        <head>
          <meta charset="utf-8" />
          <meta name="viewport" content="width=device-width, initial-scale=1" />
          <title safe>{title} · LLM platform</title>
          <meta name="csrf-token" content={csrf} />
          {/* htmx would inject an inline <style> for its indicators, which the strict CSP refuses. */}
          <meta name="htmx-config" content='{"includeIndicatorStyles":false}' />
          <link rel="stylesheet" href="/assets/app.css" />
          <script src="/assets/htmx.js" defer></script>
          <script src="/assets/dashboard.js" defer></script>
        </head>
        <body>
          <header class="top">
            <a class="brand" href="/">
              LLM platform
            </a>
            {user ? (
              <form method="post" action="/logout" class="who">
                <input type="hidden" name="_csrf" value={csrf} />
                <span safe>{user}</span>
                <button type="submit">Sign out</button>
              </form>
            ) : null}
          </header>
          <main>{children}</main>
        </body>
      </html>
    </>
  );
}
