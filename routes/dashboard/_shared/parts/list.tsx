// The pieces every list page shares: a header with its main action, state badges, empty states that
// say what to do next, pagination links, relative times and buttons that confirm before destroying.
import type { Children } from "@kitajs/html";

export function PageHeader({ title, children }: { title: string; children?: Children }) {
  return (
    <div class="page-header">
      <h1 safe>{title}</h1>
      <div class="actions">{children}</div>
    </div>
  );
}

/** Colour by meaning, not by name: good, busy (a wait in progress), bad, neutral. */
const tones: Record<string, string> = {
  RUNNING: "good",
  READY: "good",
  ACTIVE: "good",
  HEALTHY: "good",
  CONFIGURED: "good",
  ON: "good",
  OK: "good",
  SUCCESS: "good",
  FAILURE: "bad",
  PENDING: "busy",
  PROVISIONING: "busy",
  DEPLOYING: "busy",
  STARTING: "busy",
  TERMINATING: "busy",
  DELETING: "busy",
  FAILED: "bad",
  UNHEALTHY: "bad",
  ERROR: "bad",
};

/** `still`: a state in a history, not one in progress (no spinner). */
export function Badge({ state, still }: { state: string; still?: boolean }) {
  const tone = tones[state.toUpperCase()] ?? "neutral";
  return (
    <span class={`badge ${tone}`}>
      {tone === "busy" && !still ? <span class="spinner" aria-hidden="true"></span> : null}
      <span safe>{state}</span>
    </span>
  );
}

export function EmptyState({ title, children }: { title: string; children?: Children }) {
  return (
    <div class="empty">
      <p class="empty-title" safe>
        {title}
      </p>
      {children}
    </div>
  );
}

/** Previous/next links of a paginated list; hrefs are built by the page (they keep its filters). */
export function Pager({ prev, next }: { prev?: string | undefined; next?: string | undefined }) {
  if (!prev && !next) return "";
  return (
    <nav class="pager" aria-label="Pages">
      {prev ? (
        <a href={prev} rel="prev">
          ← Newer
        </a>
      ) : (
        <span></span>
      )}
      {next ? (
        <a href={next} rel="next">
          Older →
        </a>
      ) : null}
    </nav>
  );
}

/** "3 min ago", with the exact time on hover. */
export function Ago({ at, now = new Date() }: { at: string | Date | null | undefined; now?: Date }) {
  if (!at) return <span class="muted">never</span>;
  const date = typeof at === "string" ? new Date(at) : at;
  const seconds = Math.max(0, Math.round((now.getTime() - date.getTime()) / 1000));
  const text =
    seconds < 60
      ? `${seconds} s ago`
      : seconds < 3600
        ? `${Math.floor(seconds / 60)} min ago`
        : seconds < 86400
          ? `${Math.floor(seconds / 3600)} h ago`
          : `${Math.floor(seconds / 86400)} d ago`;
  return (
    <time datetime={date.toISOString()} title={date.toISOString()} safe>
      {text}
    </time>
  );
}

/**
 * A one-button form that changes something (POST with the CSRF token). With `confirm`, the browser
 * asks first (assets/dashboard.js reads data-confirm: no inline script under the CSP).
 */
export function ActionButton(props: {
  action: string;
  label: string;
  csrf: string;
  confirm?: string;
  tone?: "danger" | "secondary";
  fields?: Record<string, string>;
}) {
  return (
    <form method="post" action={props.action} class="inline" data-confirm={props.confirm}>
      <input type="hidden" name="_csrf" value={props.csrf} />
      {Object.entries(props.fields ?? {}).map(([k, v]) => (
        <input type="hidden" name={k} value={v} />
      ))}
      <button type="submit" class={props.tone ?? ""} safe>
        {props.label}
      </button>
    </form>
  );
}

/**
 * A table in a box that scrolls sideways by itself when the table is wider than the page (a phone), so
 * the page never does; the box is a labelled region a keyboard can reach and scroll (WCAG 2.1.1).
 */
export function Table({ label, children }: { label: string; children?: Children }) {
  return (
    <section class="table-scroll" aria-label={label} tabindex="0">
      <table>{children}</table>
    </section>
  );
}

/** The unlabelled header of a table's actions column, when the reader may act. */
export function ActionsHeader({ when }: { when: boolean }) {
  if (!when) return "";
  return (
    <th>
      <span class="visually-hidden">Actions</span>
    </th>
  );
}

/** A secret shown once, with a button that copies it (assets/dashboard.js reads data-copy). */
export function SecretOnce({ id, value }: { id: string; value: string }) {
  return (
    <div class="secret">
      <code id={id} safe>
        {value}
      </code>
      <button type="button" class="secondary small" data-copy={`#${id}`}>
        Copy
      </button>
    </div>
  );
}

/** A part of a page that reloads itself (htmx): every `every`, e.g. faster while something moves. */
export function Polled({
  id,
  url,
  every,
  children,
}: {
  id: string;
  url: string;
  every: string;
  children: Children;
}) {
  return (
    <div id={id} hx-get={url} hx-trigger={`every ${every}`} hx-swap="outerHTML">
      {children}
    </div>
  );
}

/**
 * One figure of a `facts` list: its term, and its value (escaped), marked `data-figure` where a test or
 * script reads it from the page.
 */
export function Figure({ label, name, value }: { label: string; name?: string; value: string }) {
  return (
    <>
      <dt safe>{label}</dt>
      <dd data-figure={name} safe>
        {value}
      </dd>
    </>
  );
}

/**
 * A table body that reloads its own rows from `url` (Polled, for rows): every 2 s while one of them is busy (its badge
 * moves without a reload), else every 10 s.
 */
export function LiveRows({
  id,
  url,
  busy,
  children,
}: {
  id: string;
  url: string;
  busy: boolean;
  children: Children;
}) {
  return (
    <tbody id={id} hx-get={url} hx-trigger={busy ? "every 2s" : "every 10s"} hx-swap="outerHTML">
      {children}
    </tbody>
  );
}
