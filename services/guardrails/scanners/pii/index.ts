import { disjoint } from "../../redact.ts";
import type { Finding, Scanner, ScannerConfig } from "../../scanner.ts";
import { detectCreditCards } from "./credit-card.ts";
import { detectEmails } from "./email.ts";
import { detectIbans } from "./iban.ts";
import { detectIpAddresses } from "./ip-address.ts";
import { detectPhones } from "./phone.ts";
import { detectSecrets } from "./secrets.ts";
import type { Detector, PiiType } from "./types.ts";
import { detectUsSsns } from "./us-ssn.ts";

const DEFAULT_THRESHOLD = 0.5;

// Phones last: detectPhones leaves alone the digits that the detectors before it have claimed.
const detectors: readonly Detector[] = [
  detectSecrets,
  detectEmails,
  detectIbans,
  detectCreditCards,
  detectUsSsns,
  detectIpAddresses,
  detectPhones,
];

// When two detectors claim overlapping text, the more specific one names it: a checksum or a
// provider prefix says more than "a valid phone number" does (an IBAN's digits can be a phone).
const specificity: Record<PiiType, number> = {
  private_key: 9,
  jwt: 8,
  api_key: 7,
  email: 6,
  iban: 5,
  credit_card: 4,
  us_ssn: 3,
  ip_address: 2,
  phone: 1,
};

function rank(f: Finding): number {
  return specificity[f.type as PiiType] ?? 0;
}

/** Keeps, of overlapping findings, the most specific (then the longest, then the first). */
export function resolveOverlaps(found: Finding[], length: number): Finding[] {
  if (found.length < 2) return found;
  found.sort((a, b) => rank(b) - rank(a) || b.end - b.start - (a.end - a.start) || a.start - b.start);
  return disjoint(found, length);
}

export const piiScanner: Scanner = {
  id: "pii",
  defaultThreshold: DEFAULT_THRESHOLD,
  scan(text: string, config: ScannerConfig): Finding[] {
    if (config.action === "off" || text.length === 0) return [];
    const threshold = config.threshold ?? DEFAULT_THRESHOLD;
    const found: Finding[] = [];
    for (const detect of detectors) detect(text, found);
    const kept = resolveOverlaps(found, text.length);
    return threshold > 0 ? kept.filter((f) => f.score >= threshold) : kept;
  },
};
