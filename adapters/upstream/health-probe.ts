// The probe of a replica out of rotation: GET <base URL>/models, which every OpenAI-compatible server
// answers (llama.cpp, vLLM, SGLang, TGI, OpenAI itself). Any answer below 500 means the server is back;
// a connection refused, a time-out or a 5xx keeps it out.

export async function probeReplica(endpoint: string, timeoutMs: number): Promise<boolean> {
  try {
    const response = await fetch(`${endpoint.replace(/\/$/, "")}/models`, {
      signal: AbortSignal.timeout(timeoutMs),
    });
    await response.body?.cancel().catch(() => {});
    return response.status < 500;
  } catch {
    return false;
  }
}
