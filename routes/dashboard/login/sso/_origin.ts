// The dashboard's address as the browser reaches it, for the redirect URI the identity provider
// sends the browser back to (it must match one registered at the provider exactly).
import { callbackPath } from "#services/sso/config.ts";

export function redirectUriOf(request: Request): string {
  const url = new URL(request.url);
  const proto = request.headers.get("x-forwarded-proto");
  const origin = proto === "https" || proto === "http" ? `${proto}://${url.host}` : url.origin;
  return `${origin}${callbackPath}`;
}

/** The callback's own URL (with the provider's query), on the same origin as the redirect URI. */
export function callbackUrlOf(request: Request): URL {
  const url = new URL(request.url);
  return new URL(`${redirectUriOf(request)}${url.search}`);
}
