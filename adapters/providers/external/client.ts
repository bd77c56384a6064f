// The external provider's transport: is an OpenAI-compatible server there?

/** `http://host:8000` and `http://host:8000/v1/` both become `http://host:8000/v1`; other paths stay. */
export function normalizeEndpoint(raw: string): string {
  const trimmed = raw.trim().replace(/\/+$/, "");
  try {
    const url = new URL(trimmed);
    return url.pathname === "" || url.pathname === "/" ? `${trimmed}/v1` : trimmed;
  } catch {
    return trimmed;
  }
}

/** Whether `${endpoint}/models`, or `/health` beside it, answers with a success. */
export async function answers(endpoint: string, apiKey: string | undefined): Promise<boolean> {
  const headers: Record<string, string> = apiKey ? { authorization: `Bearer ${apiKey}` } : {};
  const base = endpoint.replace(/\/v1$/, "");
  for (const url of [`${endpoint}/models`, `${base}/health`]) {
    try {
      const res = await fetch(url, { headers, signal: AbortSignal.timeout(2000) });
      await res.body?.cancel();
      if (res.ok) return true;
    } catch {}
  }
  return false;
}
