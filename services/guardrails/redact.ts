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
};

export function placeholderFor(type: string): string {
  return placeholders[type] ?? "[REDACTED]";
}

/**
 * Replaces each finding's span with its typed placeholder. Of overlapping findings the longest wins,
 * then the first; a finding that overlaps one already replaced is dropped, so no fragment of a
 * redacted value is left behind and no placeholder is cut in two.
 */
export function redact(text: string, findings: readonly Finding[]): string {
  if (findings.length === 0) return text;
  const ordered = [...findings].sort((a, b) => b.end - b.start - (a.end - a.start) || a.start - b.start);
  const chosen: Finding[] = [];
  for (const f of ordered) {
    if (f.end <= f.start) continue;
    if (!chosen.some((c) => f.start < c.end && c.start < f.end)) chosen.push(f);
  }
  chosen.sort((a, b) => a.start - b.start);
  let out = "";
  let at = 0;
  for (const f of chosen) {
    out += text.slice(at, f.start) + placeholderFor(f.type);
    at = f.end;
  }
  return out + text.slice(at);
}
