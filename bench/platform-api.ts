// Calls to the platform's API as the benchmarks make them, whether the platform runs in the bench's own
// process (in-process-platform.ts) or as processes of its own (gateway.ts).
import { type Static, Type as T, type TSchema } from "@sinclair/typebox";
import { checked } from "#scripts/checked.ts";

/** A call to the platform's API; the answer checked against `schema` (what the bench reads of it). */
export async function api<S extends TSchema>(
  schema: S,
  base: string,
  path: string,
  body?: unknown,
  token?: string,
): Promise<Static<S>> {
  const res = await fetch(`${base}${path}`, {
    method: body === undefined ? "GET" : "POST",
    headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  return checked(schema, await res.json(), path);
}

/** A new API key named "bench", made by the signed-in administrator at `filtration`; its secret. */
export async function createBenchKey(filtration: string, token: string): Promise<string> {
  const { key } = await api(
    T.Object({ key: T.String() }),
    filtration,
    "/management/api-keys",
    { name: "bench" },
    token,
  );
  return key;
}
