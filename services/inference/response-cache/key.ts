// What identifies an answer: a SHA-256 of the organization, the deployment, the output guardrails that
// shaped the answer, and the canonical JSON of the body sent upstream (messages after templates,
// retrieval and input redaction; sampling parameters; tools; response format). Canonical: object keys
// sorted at every depth, so two clients ordering their fields differently share an answer. `stream` and
// `stream_options` are left out: a streamed request and a plain one get the same answer, replayed in
// the framing each asked for.

/** The body fields that change how an answer is delivered, never what it says. */
const deliveryOnly: ReadonlySet<string> = new Set(["stream", "stream_options", "model"]);

export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

export interface KeyParts {
  orgId: string;
  deploymentId: string;
  /** The upstream body (the caller's body with the messages that reach the model). */
  body: { [field: string]: unknown };
  /** The output guardrails in force: an answer redacted under one policy is not served under another. */
  outputPolicy: unknown;
}

const sha256 = (text: string) => new Bun.CryptoHasher("sha256").update(text).digest("hex");

export function exactKey(parts: KeyParts): string {
  const body = Object.fromEntries(Object.entries(parts.body).filter(([k]) => !deliveryOnly.has(k)));
  return sha256(
    canonicalJson({ o: parts.orgId, d: parts.deploymentId, g: parts.outputPolicy ?? null, b: body }),
  );
}

/**
 * The semantic cache's neighbourhood: everything of the request but the question itself (the system
 * prompt, sampling parameters, response format). Two questions are compared only inside one.
 */
export function contextKey(parts: KeyParts, question: string): string {
  const body = Object.fromEntries(Object.entries(parts.body).filter(([k]) => !deliveryOnly.has(k)));
  const messages = Array.isArray(body.messages) ? body.messages : [];
  const others = messages.filter((m) => !(m && typeof m === "object" && "role" in m && m.role === "user"));
  return sha256(
    canonicalJson({
      o: parts.orgId,
      d: parts.deploymentId,
      g: parts.outputPolicy ?? null,
      b: { ...body, messages: others },
      q: question.length > 0,
    }),
  );
}
