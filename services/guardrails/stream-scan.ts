import { stageConfigs } from "./evaluate.ts";
import type { OutputGuardrails } from "./policy.ts";
import { redact } from "./redact.ts";
import { scanners } from "./registry.ts";
import type { Finding, ScannerConfig, ScannerId } from "./scanner.ts";

// Output guardrails over a streamed response (SSE deltas). Text is released as soon as nothing in it
// can still turn out to be part of a finding. What is held back, and why:
//   - the last word, while it may still grow: "john@exa" may become an e-mail address, "sk-pro" a key;
//   - a trailing run of number groups ("4111 1111 1111", "+44 20 7946", "DE89 3704 0044"), which may
//     still become a card number, a phone number, an IBAN or an SSN written with spaces;
//   - a finding not yet complete, from its start (so it is redacted whole, never half);
//   - the beginning of a "-----BEGIN ... PRIVATE KEY-----" line.
// Prose is held back by one word at most. The holdback is bounded: MAX_HOLDBACK characters, or
// MAX_SECRET_HOLDBACK for a token that starts like a credential (JWTs are long). A private key block
// is not held: its first line is replaced by [SECRET] at once and everything up to its END line is
// dropped as it arrives.
// A block-level finding stops the stream: `blocked` is returned and nothing more is emitted.
// Toxicity phrases can span a chunk boundary; the last CONTEXT characters already emitted are
// scanned again with the new text, so a phrase split across deltas is still found (the words already
// emitted cannot be recalled, but the stream is stopped).

const MAX_HOLDBACK = 256;
const MAX_SECRET_HOLDBACK = 4096;
const CONTEXT = 64;

const SECRET_PREFIX = /^(?:eyJ|sk-|sk_|rk_|ghp_|gho_|ghu_|ghs_|ghr_|github_pat_|xox|AKIA|ASIA|AIza)/;
const PEM_HEADER_PREFIX = /-(?:-(?:-(?:-(?:-(?:B(?:E(?:G(?:I(?:N(?: [A-Z0-9 ]*-{0,4})?)?)?)?)?)?)?)?)?)?$/;
const PEM_BEGIN = /-----BEGIN ((?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?)-----/;
// One group of a number written in groups: digits with phone punctuation, or (IBAN) up to four
// upper-case letters and digits.
const NUMBER_GROUP = /^(?:[+(]?[0-9][0-9().\-/]*|[A-Z0-9]{1,4})$/;

export interface StreamResult {
  /** Text safe to send now (with PII redacted where the policy says so). */
  emit: string;
  /** Set when a block-level finding stopped the stream; offsets are into the whole stream. */
  blocked?: Finding;
  /** Findings in the text emitted by this call (offsets into the whole stream), for logging. */
  findings?: Finding[];
}

export interface StreamScanner {
  push(delta: string): StreamResult;
  end(): StreamResult;
}

function isSpace(c: number): boolean {
  return c === 32 || c === 9 || c === 0xa0;
}

function isBreak(c: number): boolean {
  return isSpace(c) || c === 10 || c === 13;
}

/** Where the part of `pending` that may still grow into a finding begins. */
export function holdbackStart(pending: string): number {
  const n = pending.length;
  let start = n;
  // The last word, unless the text ends with a break.
  while (start > 0 && !isBreak(pending.charCodeAt(start - 1))) start--;
  const word = pending.slice(start);
  const limit = Math.max(0, n - (SECRET_PREFIX.test(word) ? MAX_SECRET_HOLDBACK : MAX_HOLDBACK));
  // Then number groups separated by single spaces, going back.
  let at = start;
  for (;;) {
    let end = at;
    if (end < n && end > 0 && !isSpace(pending.charCodeAt(end - 1))) break;
    if (end > 0 && isSpace(pending.charCodeAt(end - 1))) end--;
    if (end > 0 && isSpace(pending.charCodeAt(end - 1))) break; // two spaces end a number
    let s = end;
    while (s > 0 && !isBreak(pending.charCodeAt(s - 1))) s--;
    if (s === end || !NUMBER_GROUP.test(pending.slice(s, end))) break;
    if (s < limit) break;
    at = s;
    start = s;
  }
  const pem = PEM_HEADER_PREFIX.exec(pending.slice(Math.max(0, n - 40)));
  if (pem) start = Math.min(start, n - pem[0].length);
  return Math.max(start, limit);
}

export function createStreamScanner(config: OutputGuardrails): StreamScanner {
  const active = stageConfigs({ output: config }, "output");
  const actionOf = new Map<ScannerId, ScannerConfig["action"]>(active.map(([id, c]) => [id, c.action]));
  // Only redaction and blocking need text held back; findings that are merely logged do not.
  const holds = active.some(([, c]) => c.action === "redact" || c.action === "block");
  let pending = "";
  let context = "";
  let consumed = 0; // stream offset of pending[0]
  let blocked: Finding | undefined;
  let secretEnd: string | null = null; // the END line of an open private key block
  let secretTail = "";

  const shift = (f: Finding, by: number): Finding => ({ ...f, start: f.start + by, end: f.end + by });

  function skipSecret(delta: string): string | null {
    const text = secretTail + delta;
    const at = text.indexOf(secretEnd as string);
    if (at < 0) {
      consumed += delta.length;
      secretTail = text.slice(-(secretEnd as string).length);
      return null;
    }
    const rest = text.slice(at + (secretEnd as string).length);
    consumed += delta.length - rest.length;
    secretEnd = null;
    secretTail = "";
    return rest;
  }

  function flush(final: boolean): StreamResult {
    if (blocked) return { emit: "", blocked };
    const scanned = context + pending;
    const offset = context.length;
    const found: Finding[] = [];
    for (const [id, c] of active) {
      for (const f of scanners[id].scan(scanned, c)) if (f.end > offset) found.push(f);
    }
    const blocking = found.find((f) => {
      const action = actionOf.get(f.scanner);
      return action === "block" || (action === "redact" && f.scanner !== "pii");
    });
    if (blocking) {
      blocked = shift(blocking, consumed - offset);
      pending = "";
      return { emit: "", blocked };
    }
    // From here on, offsets are into `pending`.
    const local = found.map((f) => shift(f, -offset));
    let cut = final || !holds ? pending.length : holdbackStart(pending);
    const openKey = local.find((f) => f.type === "private_key" && f.end === pending.length);
    let startSecret = false;
    if (openKey && actionOf.get("pii") === "redact") {
      const label = PEM_BEGIN.exec(pending.slice(openKey.start))?.[1];
      if (label && !pending.includes(`-----END ${label}-----`, openKey.start)) {
        cut = pending.length;
        secretEnd = `-----END ${label}-----`;
        startSecret = true;
      }
    }
    if (holds && !final) for (const f of local) if (f.start < cut && f.end > cut) cut = Math.max(0, f.start);
    if (cut > 0 && cut < pending.length) {
      const c = pending.charCodeAt(cut - 1);
      if (c >= 0xd800 && c <= 0xdbff) cut--;
    }
    const part = pending.slice(0, cut);
    const inPart = local
      .filter((f) => f.end <= cut || (startSecret && f === openKey))
      .map((f) => ({ ...f, start: Math.max(0, f.start) }));
    const toRedact = inPart.filter((f) => f.scanner === "pii" && actionOf.get("pii") === "redact");
    const emit = redact(part, toRedact);
    const result: StreamResult = { emit };
    if (inPart.length > 0) result.findings = inPart.map((f) => shift(f, consumed));
    context = (context + part).slice(-CONTEXT);
    consumed += cut;
    pending = pending.slice(cut);
    if (startSecret) {
      // The key's text so far is dropped with the placeholder already emitted; wait for its END line.
      secretTail = pending.slice(-(secretEnd as string).length);
      consumed += pending.length;
      pending = "";
      context = "";
    }
    return result;
  }

  return {
    push(delta: string): StreamResult {
      if (blocked) return { emit: "", blocked };
      if (secretEnd !== null) {
        const rest = skipSecret(delta);
        if (rest === null) return { emit: "" };
        delta = rest;
      }
      pending += delta;
      return flush(false);
    },
    end(): StreamResult {
      if (blocked) return { emit: "", blocked };
      if (secretEnd !== null) return { emit: "" };
      return flush(true);
    },
  };
}
