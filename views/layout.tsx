import type { Children } from "@kitajs/html";

export interface LayoutProps {
  title: string;
  children?: Children;
  /** The signed-in user's e-mail, shown in the header. */
  user?: string | undefined;
}

export function Layout({ title, children, user }: LayoutProps) {
  return (
    <>
      {"<!doctype html>"}
      <html lang="en">
        <head>
          <meta charset="utf-8" />
          <meta name="viewport" content="width=device-width, initial-scale=1" />
          <title safe>{title} · LLM platform</title>
          <link rel="stylesheet" href="/assets/app.css" />
          <script src="/assets/htmx.js" defer></script>
        </head>
        <body>
          <header class="top">
            <a class="brand" href="/">
              LLM platform
            </a>
            {user ? (
              <form method="post" action="/logout" class="who">
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
