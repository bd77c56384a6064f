import type { Finding } from "../../scanner.ts";

export type PiiType =
  | "email"
  | "phone"
  | "credit_card"
  | "iban"
  | "us_ssn"
  | "ip_address"
  | "api_key"
  | "private_key"
  | "jwt";

/** A detector appends what it finds to `out`; sharing one array avoids an allocation per detector. */
export type Detector = (text: string, out: Finding[]) => void;

export function piiFinding(type: PiiType, score: number, start: number, end: number): Finding {
  return { scanner: "pii", type, score, start, end };
}
