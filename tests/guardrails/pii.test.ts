import { describe, expect, test } from "bun:test";
import { redact } from "#services/guardrails/redact.ts";
import type { Finding } from "#services/guardrails/scanner.ts";
import { ibanMod97Valid, luhnValid } from "#services/guardrails/scanners/pii/checksums.ts";
import { piiScanner } from "#services/guardrails/scanners/pii/index.ts";
import { validIpv6 } from "#services/guardrails/scanners/pii/ip-address.ts";

const scan = (text: string) => piiScanner.scan(text, { action: "redact" });
const typesIn = (text: string) => scan(text).map((f) => [f.type, text.slice(f.start, f.end)]);

describe("PII detection", () => {
  test("finds each structured type with its exact span", () => {
    const cases: [string, string][] = [
      ["email", "jane.o'hara+news@mail.example.co.uk".replace("'", "")],
      ["phone", "+44 20 7946 0958"],
      ["phone", "(202) 555-0143"],
      ["credit_card", "4111 1111 1111 1111"],
      ["credit_card", "3782-822463-10005"],
      ["credit_card", "5555555555554444"],
      ["iban", "DE89 3704 0044 0532 0130 00"],
      ["iban", "GB82WEST12345698765432"],
      ["us_ssn", "123-45-6789"],
      ["ip_address", "192.168.10.200"],
      ["ip_address", "2001:db8::8a2e:370:7334"],
      ["ip_address", "::ffff:192.0.2.128"],
      ["api_key", "AKIAIOSFODNN7EXAMPLE"],
      ["api_key", `sk-proj-${"a1B2".repeat(12)}`],
      ["api_key", `sk-ant-api03-${"x".repeat(90)}`],
      ["api_key", `ghp_${"a".repeat(36)}`],
      ["api_key", `github_pat_${"B".repeat(22)}_${"c".repeat(59)}`],
      ["api_key", "xoxb-2400000000-2400000000000-AbCdEfGhIjKlMnOpQrStUvWx"],
      ["api_key", `AIza${"D".repeat(35)}`],
      ["api_key", `sk_live_${"0".repeat(24)}`],
      ["api_key", `rk_live_${"9".repeat(24)}`],
      [
        "jwt",
        "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
      ],
    ];
    for (const [type, value] of cases) {
      expect(typesIn(`Here it is: ${value}, thanks.`)).toEqual([[type, value]]);
    }
  });

  test("a private key block is found from BEGIN to END, or to the end of a truncated text", () => {
    const key =
      "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----";
    expect(typesIn(`key:\n${key}\nbye`)).toEqual([["private_key", key]]);
    const open = "-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIDk";
    expect(typesIn(`key: ${open}`)).toEqual([["private_key", open]]);
  });

  test("checksums and issuing rules keep look-alikes out", () => {
    const negatives = [
      "4111 1111 1111 1112", // Luhn fails
      "35-209900-176148-1", // an IMEI: Luhn-valid, but not a card grouping
      "0000 0000 0000 0000",
      "DE89 3704 0044 0532 0130 01", // IBAN check digits wrong
      "XX89 3704 0044 0532 0130 00", // no such country
      "000-12-3456",
      "666-12-3456",
      "912-12-3456",
      "123-00-4567",
      "123-45-0000",
      "078-05-1120",
      "version 1.2.3.4.5",
      "999.1.1.1",
      "the meeting is at 12:30:45",
      "std::vector<int> v;",
      "sha 3f786850e387550fdab836ed7e6dc881de23001b",
      "uuid 123e4567-e89b-12d3-a456-426614174000",
      "-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE\n-----END PUBLIC KEY-----",
      "eyJub3QiOiJhIGhlYWRlciJ9.eyJzdWIiOiIxIn0.sig", // header without "alg"
      "ISBN 978-3-16-148410-0",
      "Order 20240512, total 1299.00 EUR on 2024-05-12.",
      "sk-short",
    ];
    for (const text of negatives) expect(typesIn(text)).toEqual([]);
  });

  test("an SSN needs a separator, or a label nearby", () => {
    expect(typesIn("id 123456789")).toEqual([]);
    expect(typesIn("SSN: 123456789")).toEqual([["us_ssn", "123456789"]]);
  });

  test("a phone number with a country code is a phone, not an SSN written with spaces", () => {
    expect(typesIn("call +688 90 1234")).toEqual([["phone", "+688 90 1234"]]);
  });

  test("phone numbers next to each other are each found", () => {
    expect(typesIn("+376 312 345 +971 50 123 4567 Is it? +93 70 123 4567 +1 268 464 1234")).toEqual([
      ["phone", "+376 312 345"],
      ["phone", "+971 50 123 4567"],
      ["phone", "+93 70 123 4567"],
      ["phone", "+1 268 464 1234"],
    ]);
  });

  test("a phone number just after a card, an IBAN or an SSN is found; their digits stay theirs", () => {
    const text =
      "card 5431-5604-8653-0976\nIBAN RS20 0037 0090 5800 4257 02\nssn 392-82-5606\ncall +971 50 123 4567";
    expect(typesIn(text)).toEqual([
      ["credit_card", "5431-5604-8653-0976"],
      ["iban", "RS20 0037 0090 5800 4257 02"],
      ["us_ssn", "392-82-5606"],
      ["phone", "+971 50 123 4567"],
    ]);
  });

  test("a card followed by its expiry date is still found", () => {
    expect(typesIn("card 4111 1111 1111 1111 12/26")).toEqual([["credit_card", "4111 1111 1111 1111"]]);
  });

  test("checksum helpers follow ISO 7812 and ISO 7064", () => {
    expect(luhnValid("79927398713")).toBe(true);
    expect(luhnValid("79927398710")).toBe(false);
    expect(ibanMod97Valid("GB82WEST12345698765432")).toBe(true);
    expect(ibanMod97Valid("GB82WEST12345698765433")).toBe(false);
    expect(validIpv6("1:2:3:4:5:6:7:8")).toBe(true);
    expect(validIpv6("1::2::3")).toBe(false);
    expect(validIpv6("1:2:3:4:5:6:7:8:9")).toBe(false);
  });

  test("findings carry offsets and labels only, never the matched text", () => {
    const secret = "AKIAIOSFODNN7EXAMPLE";
    const findings = scan(`aws ${secret} and jane@example.com`);
    expect(findings).toHaveLength(2);
    for (const f of findings)
      expect(Object.keys(f).sort()).toEqual(["end", "scanner", "score", "start", "type"]);
    expect(JSON.stringify(findings)).not.toContain(secret);
    expect(JSON.stringify(findings)).not.toContain("jane");
  });

  test("action off scans nothing; a threshold above a type's confidence drops it", () => {
    expect(piiScanner.scan("jane@example.com", { action: "off" })).toEqual([]);
    expect(
      piiScanner
        .scan("+44 20 7946 0958 jane@example.com", { action: "log", threshold: 0.9 })
        .map((f) => f.type),
    ).toEqual(["email"]);
  });
});

describe("redact", () => {
  test("replaces each finding with its typed placeholder", () => {
    const text =
      "Mail jane@example.com, call +44 20 7946 0958, card 4111 1111 1111 1111, IBAN GB82WEST12345698765432, SSN 123-45-6789, host 10.0.0.1, key AKIAIOSFODNN7EXAMPLE.";
    expect(redact(text, scan(text))).toBe(
      "Mail [EMAIL], call [PHONE], card [CREDIT_CARD], IBAN [IBAN], SSN [US_SSN], host [IP_ADDRESS], key [SECRET].",
    );
  });

  test("of overlapping findings the longest wins, then the first", () => {
    const f = (type: string, start: number, end: number): Finding => ({
      scanner: "pii",
      type,
      score: 1,
      start,
      end,
    });
    expect(redact("0123456789", [f("phone", 2, 5), f("credit_card", 1, 8), f("email", 7, 10)])).toBe(
      "0[CREDIT_CARD]89",
    );
    expect(redact("0123456789", [f("phone", 0, 4), f("email", 2, 6)])).toBe("[PHONE]456789");
    expect(redact("abc", [])).toBe("abc");
  });
});
