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

// Copy buttons: <button data-copy="#element-id">.
document.addEventListener("click", async (event) => {
  const button = event.target instanceof Element ? event.target.closest("[data-copy]") : null;
  if (!button) return;
  const source = document.querySelector(button.getAttribute("data-copy"));
  if (!source) return;
  await navigator.clipboard?.writeText(source.textContent.trim());
  button.textContent = "Copied";
});
