// The transport the remote providers' REST APIs share: JSON in and out, a time-out, and an error
// that keeps the HTTP status (404 means "gone" to the adapters) and the provider's own message.
import { propertyOf } from "#core/error-chain.ts";
import type { ProviderAccess } from "./provider.ts";

export class ProviderApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export interface JsonCall {
  /** Names the provider in error messages. */
  provider: string;
  baseUrl: string;
  method: string;
  path: string;
  /** Authentication headers. */
  headers: Record<string, string>;
  body?: unknown;
  timeoutMs?: number;
}

/** The parsed JSON answer, or undefined for an empty one; a non-2xx answer throws ProviderApiError. */
export async function callJsonApi(call: JsonCall): Promise<unknown> {
  const { method, path, body } = call;
  const res = await fetch(`${call.baseUrl}${path}`, {
    method,
    headers: { ...call.headers, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(call.timeoutMs ?? 30_000),
  });
  const text = await res.text();
  if (!res.ok) {
    let message = text.slice(0, 300);
    try {
      const parsed: unknown = JSON.parse(text);
      message = String(propertyOf(parsed, "message") ?? propertyOf(parsed, "error") ?? message);
    } catch {}
    throw new ProviderApiError(res.status, `${call.provider} ${method} ${path}: ${res.status} ${message}`);
  }
  return text ? JSON.parse(text) : undefined;
}

/** One call of a keyed API, its answer typed by the caller (the API's documented shape). */
export type KeyedCall = <T = unknown>(method: string, path: string, body?: unknown) => Promise<T>;

/**
 * A REST API reached with one account key (`credentials.api_key`) at `settings.base_url`, or at the
 * provider's public address: a call function bound to them. Throws at once when the key is missing,
 * so a pool's check and a replica's start say what to configure.
 */
export function keyedJsonApi(options: {
  provider: string;
  access: ProviderAccess;
  defaultBaseUrl: string;
  /** The authentication headers for the key. */
  authorize: (apiKey: string) => Record<string, string>;
}): KeyedCall {
  const { provider, access } = options;
  const apiKey = access.credentials?.api_key;
  if (!apiKey) throw new Error(`the ${provider} provider configuration has no api_key credential`);
  const base =
    typeof access.settings.base_url === "string" ? access.settings.base_url : options.defaultBaseUrl;
  const baseUrl = base.replace(/\/+$/, "");
  const headers = options.authorize(apiKey);
  return async <T>(method: string, path: string, body?: unknown) =>
    (await callJsonApi({ provider, baseUrl, method, path, headers, body })) as T;
}
