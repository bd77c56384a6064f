// What a replica's error answer becomes. A 4xx is the replica judging the request (an image part a
// text model cannot read, a schema its grammar cannot express): the client gets that status and the
// replica's own error, since another replica would say the same and a 502 would make every SDK retry.
// Anything else is the replica failing: 502 upstream_error, as before.
import { AppError } from "#core/errors.ts";

/** The most of a refusal's body we read: an error is a few hundred bytes, a runaway body is cut. */
const maxBodyBytes = 64 * 1024;

interface ReplicaError {
  message?: unknown;
  type?: unknown;
  param?: unknown;
  code?: unknown;
}

/** Reads a replica's answer that is not 2xx (and consumes its body) into the error the client gets. */
export async function replicaError(response: Response): Promise<AppError> {
  const status = response.status;
  if (status < 400 || status >= 500) {
    await response.body?.cancel().catch(() => {});
    return new AppError("upstream_error", `the model's server answered ${status}`);
  }
  const error = parseError(await readText(response));
  const text = (value: unknown) => (typeof value === "string" && value !== "" ? value : undefined);
  return new AppError(
    "upstream_refused",
    text(error?.message) ?? `the model's server refused the request (HTTP ${status})`,
    {
      status,
      type: text(error?.type) ?? "invalid_request_error",
      param: text(error?.param) ?? null,
      // OpenAI's own errors often carry `code: null`; a code given as a number (vLLM) stays readable.
      openai_code: typeof error?.code === "number" ? String(error.code) : (text(error?.code) ?? null),
    },
  );
}

async function readText(response: Response): Promise<string> {
  const text = await response.text().catch(() => "");
  return text.length > maxBodyBytes ? text.slice(0, maxBodyBytes) : text;
}

/** OpenAI's `{error: {...}}`, vLLM's flat `{object: "error", message, ...}`, FastAPI's `{detail}`. */
function parseError(body: string): ReplicaError | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return undefined;
  }
  if (typeof parsed !== "object" || parsed === null) return undefined;
  const record = parsed as { error?: unknown; detail?: unknown; message?: unknown };
  if (typeof record.error === "object" && record.error !== null) return record.error as ReplicaError;
  if (typeof record.error === "string") return { message: record.error };
  if (typeof record.message === "string") return record as ReplicaError;
  if (typeof record.detail === "string") return { message: record.detail };
  return undefined;
}
