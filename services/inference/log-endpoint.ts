// A replica's base URL as an inference log keeps it: what an operator recognises from the deployment's
// replica list (scheme, host, port, path), never what could carry a credential (user info, a query such
// as `?key=`, a fragment). Pure, so the gateway cleans it before the entry leaves the process (spill
// files, /internal/logs/create) and the writer cleans it again for any other sender.

/** The URL without user info, query or fragment; undefined when it is not a URL at all. */
export function endpointForLog(endpoint: string | null | undefined): string | undefined {
  if (!endpoint) return undefined;
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    return undefined;
  }
  url.username = "";
  url.password = "";
  url.search = "";
  url.hash = "";
  return url.href.replace(/\/$/, "");
}
