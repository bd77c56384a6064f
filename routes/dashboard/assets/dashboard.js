// The dashboard's only script besides htmx, served as a file so the CSP needs no 'unsafe-inline'.

// Every htmx request carries the CSRF token of the page's meta tag.
document.addEventListener("htmx:configRequest", (event) => {
  const meta = document.querySelector('meta[name="csrf-token"]');
  if (meta) event.detail.headers["X-CSRF-Token"] = meta.getAttribute("content");
});

// Destructive forms ask first: <form data-confirm="Delete pool x?">.
document.addEventListener("submit", (event) => {
  const form = event.target;
  if (!(form instanceof HTMLFormElement)) return;
  const question = form.dataset.confirm;
  if (question && !window.confirm(question)) event.preventDefault();
});

// Selects that act at once (the organization switcher): submit on change.
document.addEventListener("change", (event) => {
  const form = event.target instanceof HTMLSelectElement ? event.target.form : null;
  if (form?.hasAttribute("data-autosubmit")) form.requestSubmit();
});

// The navigation's Menu button (shown on narrow screens only): opens and folds the list of sections.
document.addEventListener("click", (event) => {
  const toggle = event.target instanceof Element ? event.target.closest("[data-nav-toggle]") : null;
  if (!toggle) return;
  toggle.setAttribute("aria-expanded", String(toggle.getAttribute("aria-expanded") !== "true"));
});

// Copy buttons: <button data-copy="#element-id">.
document.addEventListener("click", async (event) => {
  const button = event.target instanceof Element ? event.target.closest("[data-copy]") : null;
  if (!button) return;
  const source = document.querySelector(button.getAttribute("data-copy"));
  if (!source) return;
  await navigator.clipboard?.writeText(source.textContent.trim());
  button.textContent = "Copied";
});

// The playground (<form data-playground>): the conversation is kept here, in the page. Send posts every
// turn so far to /playground/chat and reads the answer's Server-Sent Events as they arrive, appending
// each token to the answer in the transcript; an error (429, a guardrail) is shown as a message.
const playgroundTurns = new WeakMap();

function addTurn(form, role, text) {
  const transcript = form.querySelector("[data-transcript]");
  transcript.querySelector("[data-transcript-empty]")?.remove();
  const turn = document.createElement("div");
  turn.className = `turn ${role}`;
  const who = document.createElement("div");
  who.className = "turn-who";
  who.textContent = role === "user" ? "You" : "Assistant";
  const body = document.createElement("p");
  body.className = "text";
  body.textContent = text;
  turn.append(who, body);
  transcript.append(turn);
  transcript.scrollTop = transcript.scrollHeight;
  return body;
}

/** The message of an error answer: the platform's {error: {message}}, or its text. */
async function problemText(response) {
  const text = await response.text();
  try {
    const body = JSON.parse(text);
    return body.error?.message ?? body.message ?? text;
  } catch {
    return text || response.statusText;
  }
}

const statusLabel = { 429: "Rate limit or quota", 400: "Refused", 403: "Not allowed", 503: "Unavailable" };

document.addEventListener("submit", async (event) => {
  const form = event.target;
  if (!(form instanceof HTMLFormElement) || !form.hasAttribute("data-playground")) return;
  event.preventDefault();
  const send = form.querySelector("[data-send]");
  const problem = form.querySelector("[data-playground-error]");
  const status = form.querySelector("[data-playground-status]");
  const input = form.elements.namedItem("message");
  const text = input.value.trim();
  if (!text || send.disabled) return;
  const turns = playgroundTurns.get(form) ?? [];
  playgroundTurns.set(form, turns);
  const value = (name) => form.elements.namedItem(name)?.value.trim() ?? "";
  const number = (name) => (value(name) === "" ? undefined : Number(value(name)));
  problem.hidden = true;
  send.disabled = true;
  status.textContent = "Generating…";
  addTurn(form, "user", text);
  const pending = [...turns, { role: "user", content: text }];
  let answer;
  let content = "";
  try {
    const meta = document.querySelector('meta[name="csrf-token"]');
    const response = await fetch(form.action, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "text/event-stream",
        "X-CSRF-Token": meta?.getAttribute("content") ?? "",
      },
      body: JSON.stringify({
        deployment: value("deployment"),
        system: value("system") || undefined,
        messages: pending,
        max_tokens: number("max_tokens"),
        temperature: number("temperature"),
      }),
    });
    if (!response.ok) {
      const label = statusLabel[response.status] ?? `Error ${response.status}`;
      throw new Error(`${label}: ${await problemText(response)}`);
    }
    input.value = "";
    answer = addTurn(form, "assistant", "");
    answer.setAttribute("data-answer", "");
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = "";
    for (;;) {
      const { value: piece, done } = await reader.read();
      if (done) break;
      buffer += piece;
      const events = buffer.split("\n\n");
      buffer = events.pop();
      for (const block of events) {
        const data = block
          .split("\n")
          .filter((line) => line.startsWith("data:"))
          .map((line) => line.slice(5).trim())
          .join("\n");
        if (!data || data === "[DONE]") continue;
        const chunk = JSON.parse(data);
        if (chunk.error) throw new Error(chunk.error.message);
        const delta = chunk.choices?.[0]?.delta?.content ?? chunk.choices?.[0]?.message?.content ?? "";
        if (delta) {
          content += delta;
          answer.textContent = content;
        }
      }
    }
    turns.push({ role: "user", content: text }, { role: "assistant", content });
  } catch (error) {
    problem.textContent = error.message;
    problem.hidden = false;
    // A turn the model did not answer is not part of the conversation sent next time.
    if (answer && content) turns.push({ role: "user", content: text }, { role: "assistant", content });
  } finally {
    send.disabled = false;
    status.textContent = "";
  }
});

// "New conversation": forget the turns and empty the transcript.
document.addEventListener("click", (event) => {
  const button = event.target instanceof Element ? event.target.closest("[data-clear]") : null;
  const form = button?.closest("form[data-playground]");
  if (!form) return;
  playgroundTurns.delete(form);
  form.querySelector("[data-transcript]").replaceChildren();
  form.querySelector("[data-playground-error]").hidden = true;
});

// A deployment's live log (<pre data-log-socket="/deployments/<id>/logs-ws">): a WebSocket on this
// origin, one JSON line a message, appended as text, the view kept at the bottom unless the reader
// scrolled up; the state line below says whether it is connected.
function followLog(panel) {
  const state = document.getElementById(`${panel.id}-state`);
  const url = new URL(panel.dataset.logSocket, location.href);
  url.protocol = location.protocol === "https:" ? "wss:" : "ws:";
  const socket = new WebSocket(url);
  socket.addEventListener("open", () => {
    if (state) state.textContent = "live";
  });
  socket.addEventListener("message", (event) => {
    let entry;
    try {
      entry = JSON.parse(event.data);
    } catch {
      return;
    }
    const atBottom = panel.scrollTop + panel.clientHeight >= panel.scrollHeight - 4;
    const time = typeof entry.ts === "string" ? entry.ts.slice(11, 19) : "";
    panel.append(`${time} [${entry.replica ?? "-"} ${entry.stream ?? ""}] ${entry.line ?? ""}\n`);
    if (atBottom) panel.scrollTop = panel.scrollHeight;
  });
  socket.addEventListener("close", () => {
    if (state) state.textContent = "disconnected: reload the page to reconnect";
  });
}
document.addEventListener("DOMContentLoaded", () => {
  for (const panel of document.querySelectorAll("[data-log-socket]")) followLog(panel);
});

// Polling swaps (hx-trigger="every …") replace the element that has keyboard focus. Before a swap, note
// what is focused by a key that survives re-rendering (id, or href / name / action and text); after it,
// focus its counterpart in the new content, so keyboard users stay where they were (WCAG 2.4.3).
let focusKey = null;
function keyOf(element) {
  if (!(element instanceof HTMLElement) || element === document.body) return null;
  if (element.id) return { id: element.id };
  return {
    tag: element.tagName,
    href: element.getAttribute("href"),
    name: element.getAttribute("name"),
    form: element.closest("form")?.getAttribute("action") ?? null,
    text: element.textContent.trim().slice(0, 80),
  };
}
function findByKey(key) {
  if (key.id) return document.getElementById(key.id);
  for (const candidate of document.getElementsByTagName(key.tag)) {
    const same = keyOf(candidate);
    if (
      same &&
      same.href === key.href &&
      same.name === key.name &&
      same.form === key.form &&
      same.text === key.text
    ) {
      return candidate;
    }
  }
  return null;
}
document.addEventListener("htmx:beforeSwap", (event) => {
  const target = event.detail.target;
  focusKey = target?.contains(document.activeElement) ? keyOf(document.activeElement) : null;
});
document.addEventListener("htmx:afterSettle", (event) => {
  const verb = event.detail.requestConfig?.verb;
  if (focusKey && (verb === undefined || verb === "get")) {
    findByKey(focusKey)?.focus({ preventScroll: true });
  }
  focusKey = null;
});

// After a change, the notice or error it brought receives focus, so keyboard users land on it and screen
// readers read it (a change's notice is itself a live region: role=status or aria-live): on the page a
// form's answer loads, and after an htmx request other than a GET.
const changeOutcome = ".notice[role=status], .notice[aria-live], .error, [role=alert]";
function announce(message) {
  if (!message) return;
  if (!message.hasAttribute("tabindex")) message.setAttribute("tabindex", "-1");
  message.focus();
}
document.addEventListener("DOMContentLoaded", () => {
  announce(document.querySelector(`main ${changeOutcome}`));
  // A redirect's notice (_shared/notice.ts) is shown once.
  if (document.querySelector("[data-flash]")) {
    if (window.cookieStore) window.cookieStore.delete("llmp_notice");
    // biome-ignore lint/suspicious/noDocumentCookie: browsers without the Cookie Store API.
    else document.cookie = "llmp_notice=; Path=/; Max-Age=0; SameSite=Strict";
  }
});
document.addEventListener("htmx:afterSettle", (event) => {
  const verb = event.detail.requestConfig?.verb;
  if (!verb || verb === "get") return;
  announce(event.detail.target?.querySelector?.(changeOutcome));
});
