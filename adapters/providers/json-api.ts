// The transport the remote providers' REST APIs share: JSON in and out, a time-out, and an error
// that keeps the HTTP status (404 means "gone" to the adapters) and the provider's own message.

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
      const parsed = JSON.parse(text) as { message?: string; error?: string };
      message = parsed.message ?? parsed.error ?? message;
    } catch {}
    throw new ProviderApiError(res.status, `${call.provider} ${method} ${path}: ${res.status} ${message}`);
  }
  return text ? JSON.parse(text) : undefined;
}
