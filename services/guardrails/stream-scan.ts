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
// Prose is held back by one word at most, and less when the word holds a character no PII value can
// contain (see `releasableEnd`): "erlnd(X$R" is released up to its "$" while the word still grows. The holdback is bounded: MAX_HOLDBACK characters, or
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
/** The same group at the end of a longer word. */
const GLUED_GROUP = /(?:[+(]?[0-9][0-9().\-/]*|[A-Z0-9]{1,4})$/;

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
    if (s === end) break;
    const group = pending.slice(s, end);
    if (!NUMBER_GROUP.test(group)) {
      // A number glued to the word before it ("er$+247 40123", as a random model writes): held from
      // where its group begins; nothing before it can belong to the same number.
      const glued = GLUED_GROUP.exec(group);
      if (glued && s + glued.index >= limit) start = s + glued.index;
      break;
    }
    if (s < limit) break;
    at = s;
    start = s;
  }
  const pem = PEM_HEADER_PREFIX.exec(pending.slice(Math.max(0, n - 40)));
  if (pem) start = Math.min(start, n - pem[0].length);
  return Math.max(start, limit);
}

// The characters that can occur inside a finding of each PII type, each a superset read off its
// detector (scanners/pii/): what a value of that type, or the context a detector may take into its
// span, can be made of. A finding that covers a released character and goes on past the text known
// so far contains every character from there to the end: if that tail holds, for every type, a
// character outside the type's set, no such finding exists, and the text up to it can be released
// while the word is still being written. Findings wholly inside the known text are found by the scan
// itself, as before. Keep these in step with the detectors (tests/guardrails/stream-scan.test.ts
// streams every corpus value split at every position).
const INSIDE_PII: readonly RegExp[] = [
  // E-mail addresses (local part and domain of any script); API keys and JWTs ([A-Za-z0-9_.-]) are a
  // subset.
  /[\p{L}\p{N}\p{M}._%+@-]/u,
  // The header of a private key block while it is incomplete (a complete one is a finding already).
  /[A-Z0-9 -]/,
  // IBANs (groups separated by a space, a dash or a dot); card numbers and SSNs are a subset.
  /[A-Za-z0-9 .-]/,
  // IPv4, IPv6 with an embedded IPv4 tail and a zone id.
  /[0-9A-Za-z:.%_-]/,
  // Phone numbers as libphonenumber-js's matcher reads them: its digits (ASCII, full-width, Arabic-
  // Indic), punctuation (dashes, slashes, dots, white space, brackets, tildes), plus signs, and its
  // extension labels and marks ("ext", "extensión", "anexo", "int", "x", "доб", "#", ",,", ";ext=", ":"),
  // in either case and full width; the detector's own runs (RUN in phone.ts) are a subset.
  /[0-9\uFF10-\uFF19\u0660-\u0669\u06F0-\u06F9\-\u2010-\u2015\u2212\u30FC\uFF0D\uFF0F/\uFF0E. \t\u00A0\u00AD\u200B\u2060\u3000()\uFF08\uFF09\uFF3B\uFF3D[\]~\u2053\u223C\uFF5E+\uFF0B#\uFF03,;=:aeinostxAEINOSTX\u00F3\u00D3\uFF45\uFF58\uFF54\uFF4E\uFF49\uFF25\uFF38\uFF34\uFF2E\uFF29\u0434\u043E\u0431\u0414\u041E\u0411]|\u0301/,
];

/**
 * Where the text that no PII finding can still grow into ends: just after the last character of the
 * shortest tail of `pending` that, for every type, holds a character outside `INSIDE_PII` (0: none).
 */
export function releasableEnd(pending: string): number {
  let open = INSIDE_PII.length;
  const closed = new Uint8Array(INSIDE_PII.length);
  for (let i = pending.length - 1; i >= 0; i--) {
    const low = pending.charCodeAt(i);
    let start = i;
    // A surrogate pair is one character (one letter of \p{L}, say): test it whole.
    if (low >= 0xdc00 && low <= 0xdfff && i > 0) {
      const high = pending.charCodeAt(i - 1);
      if (high >= 0xd800 && high <= 0xdbff) start = i - 1;
    }
    const ch = pending.slice(start, i + 1);
    let t = 0;
    for (const inside of INSIDE_PII) {
      if (closed[t] === 0 && !inside.test(ch)) {
        closed[t] = 1;
        open--;
      }
      t++;
    }
    if (open === 0) return i + 1;
    i = start;
  }
  return 0;
}

type Actions = ReadonlyMap<ScannerId, ScannerConfig["action"]>;

const shift = (f: Finding, by: number): Finding => ({ ...f, start: f.start + by, end: f.end + by });

/** The finding that stops the stream: a block, or a redaction of what only PII can be redacted in. */
function blockingFinding(found: readonly Finding[], actionOf: Actions): Finding | undefined {
  return found.find((f) => {
    const action = actionOf.get(f.scanner);
    return action === "block" || (action === "redact" && f.scanner !== "pii");
  });
}

/** A private key block the text opens and does not yet close: its END line, and where its header ends. */
interface OpenSecret {
  endLine: string;
  headerEnd: number;
}

function openSecretOf(pending: string, key: Finding): OpenSecret | undefined {
  const header = PEM_BEGIN.exec(pending.slice(key.start));
  const label = header?.[1];
  if (!header || !label || pending.includes(`-----END ${label}-----`, key.start)) return undefined;
  return { endLine: `-----END ${label}-----`, headerEnd: key.start + header[0].length };
}

/** A cut never splits a finding still held (it moves to the finding's start) nor a surrogate pair. */
function settleCut(pending: string, local: readonly Finding[], cut: number, holdFindings: boolean): number {
  if (holdFindings) for (const f of local) if (f.start < cut && f.end > cut) cut = Math.max(0, f.start);
  if (cut > 0 && cut < pending.length) {
    const c = pending.charCodeAt(cut - 1);
    if (c >= 0xd800 && c <= 0xdbff) cut--;
  }
  return cut;
}

/** What the output policy asks of a stream: the scanners, their actions, and what may be held back. */
function streamPolicy(config: OutputGuardrails) {
  const active = stageConfigs({ output: config }, "output");
  const actionOf: Actions = new Map<ScannerId, ScannerConfig["action"]>(
    active.map(([id, c]) => [id, c.action]),
  );
  // Only redaction and blocking need text held back; findings that are merely logged do not.
  const holds = active.some(([, c]) => c.action === "redact" || c.action === "block");
  // A word may be released in part only when PII is all that holds text back: a toxic word can be
  // spelt with any character ("a$$"), and half of one must not go out before the whole is read.
  const partialWords = holds && actionOf.get("toxicity") !== "redact" && actionOf.get("toxicity") !== "block";
  return { active, actionOf, holds, partialWords, redactsPii: actionOf.get("pii") === "redact" };
}

export function createStreamScanner(config: OutputGuardrails): StreamScanner {
  const { active, actionOf, holds, partialWords, redactsPii } = streamPolicy(config);
  let pending = "";
  let context = "";
  let consumed = 0; // stream offset of pending[0]
  let blocked: Finding | undefined;
  let secretEnd: string | null = null; // the END line of an open private key block
  let secretTail = "";

  function skipSecret(delta: string, endLine: string): string | null {
    const text = secretTail + delta;
    const at = text.indexOf(endLine);
    if (at < 0) {
      consumed += delta.length;
      secretTail = text.slice(-endLine.length);
      return null;
    }
    const rest = text.slice(at + endLine.length);
    consumed += delta.length - rest.length;
    secretEnd = null;
    secretTail = "";
    return rest;
  }

  /** The findings of the text not yet emitted (read with the context before it), offsets into `pending`; or the one that blocks, offsets into the stream. */
  function scanPending(): { blocking: Finding } | { local: Finding[] } {
    const scanned = context + pending;
    const offset = context.length;
    const found: Finding[] = [];
    for (const [id, c] of active) {
      for (const f of scanners[id].scan(scanned, c)) if (f.end > offset) found.push(f);
    }
    const blocking = blockingFinding(found, actionOf);
    if (blocking) return { blocking: shift(blocking, consumed - offset) };
    return { local: found.map((f) => shift(f, -offset)) };
  }

  function flush(final: boolean): StreamResult {
    if (blocked) return { emit: "", blocked };
    const scan = scanPending();
    if ("blocking" in scan) {
      blocked = scan.blocking;
      pending = "";
      return { emit: "", blocked };
    }
    const local = scan.local;
    let cut = final || !holds ? pending.length : holdbackStart(pending);
    if (partialWords && cut < pending.length) cut = Math.max(cut, releasableEnd(pending));
    const openKey = local.find((f) => f.type === "private_key" && f.end === pending.length);
    const secret = openKey && redactsPii ? openSecretOf(pending, openKey) : undefined;
    if (secret) cut = pending.length;
    cut = settleCut(pending, local, cut, holds && !final);
    const part = pending.slice(0, cut);
    const inPart = local
      .filter((f) => f.end <= cut || (secret !== undefined && f === openKey))
      .map((f) => ({ ...f, start: Math.max(0, f.start) }));
    const toRedact = redactsPii ? inPart.filter((f) => f.scanner === "pii") : [];
    const result: StreamResult = { emit: redact(part, toRedact) };
    if (inPart.length > 0) result.findings = inPart.map((f) => shift(f, consumed));
    context = (context + part).slice(-CONTEXT);
    consumed += cut;
    pending = pending.slice(cut);
    if (secret) {
      // The key's text so far is dropped with the placeholder already emitted; wait for its END line.
      // The key's text after its header may already hold the start of the END line ("...\n-"): it is
      // kept to be read with what comes next.
      secretEnd = secret.endLine;
      secretTail = part.slice(Math.max(secret.headerEnd, part.length - secret.endLine.length + 1));
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
        const rest = skipSecret(delta, secretEnd);
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
