import type { Children } from "@kitajs/html";
import { sectionOf, sections } from "./nav.ts";
import type { PageInfo } from "./page.ts";

export type LayoutProps = {
  title: string;
  children?: Children;
} & (
  | /** A signed-in page: header with the user, the organization switcher and the navigation. */
  { page: PageInfo; csrf?: undefined }
  /** A public page (sign-in): only the CSRF token for its form. */
  | { page?: undefined; csrf: string }
);

export function Layout(props: LayoutProps) {
  const { title, children, page } = props;
  const csrf = page ? page.csrf : props.csrf;
  const current = page ? sectionOf(page.path) : undefined;
  return (
    <>
      {"<!doctype html>"}
      <html lang="en">
        <head>
          <meta charset="utf-8" />
          <meta name="viewport" content="width=device-width, initial-scale=1" />
          <title safe>{title} · LLM platform</title>
          <meta name="csrf-token" content={csrf} />
          {/* htmx would inject an inline <style> for its indicators, which the strict CSP refuses; a 422
              (a form with errors) is swapped in like a 200 so the errors show beside their fields. */}
          <meta
            name="htmx-config"
            content='{"includeIndicatorStyles":false,"responseHandling":[{"code":"204","swap":false},{"code":"[23]..","swap":true},{"code":"422","swap":true},{"code":"[45]..","swap":false,"error":true}]}'
          />
          <link rel="icon" href="/assets/favicon.svg" type="image/svg+xml" />
          <link rel="stylesheet" href="/assets/app.css" />
          <script src="/assets/htmx.js" defer></script>
          <script src="/assets/dashboard.js" defer></script>
        </head>
        <body>
          <a class="skip" href="#main">
            Skip to content
          </a>
          <header class="top">
            <a class="brand" href="/">
              LLM platform
            </a>
            {page ? <SessionBar page={page} /> : null}
          </header>
          <div class={page ? "shell" : "shell public"}>
            {page ? (
              <nav aria-label="Sections">
                {/* On a phone the list folds behind this button (assets/dashboard.js opens it); on a
                    wider screen the button is hidden and the list always shows. */}
                <button
                  type="button"
                  class="nav-toggle secondary"
                  aria-expanded="false"
                  aria-controls="sections-list"
                  data-nav-toggle
                >
                  <span aria-hidden="true">☰</span> Menu
                  {current ? (
                    <span class="nav-current" safe>
                      {` · ${current.label}`}
                    </span>
                  ) : null}
                </button>
                <ul id="sections-list">
                  {sections
                    .filter((s) => page.actor.permissions.has(s.permission))
                    .map((s) => (
                      <li>
                        <a href={s.href} aria-current={s === current ? "page" : undefined} safe>
                          {s.label}
                        </a>
                      </li>
                    ))}
                  <li>
                    <a href="/account" aria-current={page.path.startsWith("/account") ? "page" : undefined}>
                      Account and two-factor
                    </a>
                  </li>
                </ul>
              </nav>
            ) : null}
            <main id="main">
              {page?.notice ? (
                <p class="notice" role="status" data-flash safe>
                  {page.notice}
                </p>
              ) : null}
              {children}
            </main>
          </div>
          {/* Announces the outcome of each change made without a page load (assets/dashboard.js). */}
          <div id="status" class="visually-hidden" role="status" aria-live="polite"></div>
        </body>
      </html>
    </>
  );
}

/** The header's right side: the organization switcher (POST /switch-org), the user and sign-out. */
function SessionBar({ page }: { page: PageInfo }) {
  const active = page.organizations.find((o) => o.active);
  return (
    <div class="who">
      {page.organizations.length > 1 ? (
        <form method="post" action="/switch-org" class="switcher" data-autosubmit>
          <input type="hidden" name="_csrf" value={page.csrf} />
          <input type="hidden" name="next" value={page.path} />
          <label>
            <span class="visually-hidden">Organization</span>
            <select name="org_id" aria-label="Organization">
              {page.organizations.map((o) => (
                <option value={o.id} selected={o.active} safe>
                  {o.name}
                </option>
              ))}
            </select>
          </label>
          <button type="submit" class="secondary small">
            Switch
          </button>
        </form>
      ) : active ? (
        <span class="org" safe>
          {active.name}
        </span>
      ) : null}
      <span class="user">
        <span safe>{page.actor.email}</span> · <span safe>{page.actor.role}</span>
      </span>
      <form method="post" action="/logout">
        <input type="hidden" name="_csrf" value={page.csrf} />
        <button type="submit" class="secondary small">
          Sign out
        </button>
      </form>
    </div>
  );
}
