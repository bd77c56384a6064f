// The dashboard's only script besides htmx, served as a file so the CSP needs no 'unsafe-inline':
// every htmx request carries the CSRF token of the page's meta tag.
document.addEventListener("htmx:configRequest", (event) => {
  const meta = document.querySelector('meta[name="csrf-token"]');
  if (meta) event.detail.headers["X-CSRF-Token"] = meta.getAttribute("content");
});
