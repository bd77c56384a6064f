import type { Finding } from "./scanner.ts";

const placeholders: Readonly<Record<string, string>> = {
  email: "[EMAIL]",
  phone: "[PHONE]",
  credit_card: "[CREDIT_CARD]",
  iban: "[IBAN]",
  us_ssn: "[US_SSN]",
  ip_address: "[IP_ADDRESS]",
  api_key: "[SECRET]",
  private_key: "[SECRET]",
  jwt: "[SECRET]",
  unscanned: "[UNSCANNED]",
};

export function placeholderFor(type: string): string {
  return placeholders[type] ?? "[REDACTED]";
}

/**
 * Replaces each finding's span with its typed placeholder. Of overlapping findings the longest wins,
 * then the first; a finding that overlaps one already replaced is dropped, so no fragment of a
 * redacted value is left behind and no placeholder is cut in two.
 */
/**
 * Of findings in order of preference, those that overlap none preferred before them, by start. Linear
 * in the text: each finding looks at the characters it covers (marked once taken), instead of every
 * finding kept so far (50,000 addresses in a text made that a quadratic 0.2 s).
 */
export function disjoint(ordered: readonly Finding[], length: number): Finding[] {
  const taken = new Uint8Array(length + 1);
  const chosen: Finding[] = [];
  for (const f of ordered) {
    if (f.end <= f.start) continue;
    const start = Math.max(0, f.start);
    const end = Math.min(length, f.end);
    let clash = false;
    for (let i = start; i < end; i++) {
      if (taken[i] === 1) {
        clash = true;
        break;
      }
    }
    if (clash) continue;
    taken.fill(1, start, end);
    chosen.push(f);
  }
  return chosen.sort((a, b) => a.start - b.start);
}

export function redact(text: string, findings: readonly Finding[]): string {
  if (findings.length === 0) return text;
  const ordered = [...findings].sort((a, b) => b.end - b.start - (a.end - a.start) || a.start - b.start);
  const chosen = disjoint(ordered, text.length);
  let out = "";
  let at = 0;
  for (const f of chosen) {
    out += text.slice(at, f.start) + placeholderFor(f.type);
    at = f.end;
  }
  return out + text.slice(at);
}
