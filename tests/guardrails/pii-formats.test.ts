// PII written the ways people write it beyond the generated examples: national phone numbers of other
// countries when the country is named near them, SSNs with dots, spaces or no separator when labelled,
// internationalised e-mail addresses (Unicode and punycode), cards and IBANs in other groupings. One
// test per format, each with a look-alike that must stay unflagged.
import { expect, test } from "bun:test";
import { piiScanner } from "#services/guardrails/scanners/pii/index.ts";

const found = (text: string) =>
  piiScanner.scan(text, { action: "redact" }).map((f) => `${f.type}:${text.slice(f.start, f.end)}`);

test("a national phone number read as the country named near it", () => {
  expect(found("call me in Germany at 030 1234567")).toEqual(["phone:030 1234567"]);
  expect(found("my French mobile: 06 12 34 56 78 (France)")).toEqual(["phone:06 12 34 56 78"]);
  expect(found("in the UK ring 020 7946 0958")).toEqual(["phone:020 7946 0958"]);
  expect(found("Japan office 03-1234-5678")).toEqual(["phone:03-1234-5678"]);
  expect(found("Brazil: (11) 91234-5678")).toEqual(["phone:(11) 91234-5678"]);
  // Without a country, the same digits are no valid US number and stay unflagged.
  expect(found("reference 030 1234567")).toEqual([]);
  // A country far away (more than a sentence) says nothing about the number.
  expect(
    found(`We visited Germany last year, and it was lovely in every season of it. Ticket 030 1234567.`),
  ).toEqual([]);
});

test("an SSN with dots, spaces or no separator when the context says so", () => {
  expect(found("SSN 123 45 6789")).toEqual(["us_ssn:123 45 6789"]);
  expect(found("SSN: 123.45.6789")).toEqual(["us_ssn:123.45.6789"]);
  expect(found("social security number 123456789")).toEqual(["us_ssn:123456789"]);
  expect(found("Social Security no. 123-45.6789")).toEqual(["us_ssn:123-45.6789"]);
  // Dots without the label are versions and ids; an area the SSA never issues is no SSN.
  expect(found("build 123.45.6789")).toEqual([]);
  expect(found("SSN 666.45.6789")).toEqual([]);
});

test("internationalised e-mail addresses: Unicode and punycode domains", () => {
  expect(found("write to jürgen@bücher.de please")).toEqual(["email:jürgen@bücher.de"]);
  expect(found("почта: иван@пример.рф")).toEqual(["email:иван@пример.рф"]);
  expect(found("mail user@xn--bcher-kva.de")).toEqual(["email:user@xn--bcher-kva.de"]);
  expect(found("or info@example.xn--p1ai")).toEqual(["email:info@example.xn--p1ai"]);
  // A decorator or an address at an IP is not one.
  expect(found("@decorator.app and user@10.0.0.1")).toEqual(["ip_address:10.0.0.1"]);
});

test("cards grouped by dots or in two halves of eight", () => {
  expect(found("card 4111.1111.1111.1111")).toEqual(["credit_card:4111.1111.1111.1111"]);
  expect(found("card 41111111 11111111")).toEqual(["credit_card:41111111 11111111"]);
  // The same groupings failing Luhn are other numbers.
  expect(found("ref 4111.1111.1111.1112")).toEqual([]);
});

test("IBANs grouped by dashes or dots, and typed in lower case", () => {
  expect(found("IBAN DE89-3704-0044-0532-0130-00")).toEqual(["iban:DE89-3704-0044-0532-0130-00"]);
  expect(found("IBAN DE89.3704.0044.0532.0130.00")).toEqual(["iban:DE89.3704.0044.0532.0130.00"]);
  expect(found("iban de89 3704 0044 0532 0130 00")).toEqual(["iban:de89 3704 0044 0532 0130 00"]);
  // A check digit off: mod-97 refuses it.
  expect(found("iban de88 3704 0044 0532 0130 00")).toEqual([]);
});

test("an ISO timestamp is not a phone number", () => {
  expect(found("Sun 2017-02-26 20:37:16 EST")).toEqual([]);
  expect(found("<td>2023-04-03 01</td>")).toEqual([]);
  expect(found("since 2017-02-26 20:37 call 202-555-0173")).toEqual(["phone:202-555-0173"]);
});

test("a NANP-shaped number is a phone even with an area code no plan has issued, extension included", () => {
  expect(found("fax +1-962-819-8200x5266 today")).toEqual(["phone:+1-962-819-8200x5266"]);
  expect(found("(311)905-4466 ext. 88")).toEqual(["phone:(311)905-4466 ext. 88"]);
  expect(found("or 001-748-088-2851")).toEqual(["phone:001-748-088-2851"]);
  // Mixed separators, a longer run or a version are not that shape.
  expect(found("build 311.905-4466.2 and v962.819.8200.1")).toEqual([]);
});

test("a local number of any region when a phone word precedes it or a label follows it", () => {
  expect(found("Phone: (88) 684-334")).toEqual(["phone:(88) 684-334"]);
  expect(found("you can call 61 51 81 tonight")).toEqual(["phone:61 51 81"]);
  expect(found("0910-5877671-Office")).toEqual(["phone:0910-5877671"]);
  expect(found("22 498317 office")).toEqual(["phone:22 498317"]);
  // The same digits with no phone word, a date or a street address after "call" are not phones.
  expect(found("order 22 498317 shipped")).toEqual([]);
  expect(found("call on 09.06.2021 about it")).toEqual([]);
  expect(found("I'd like to call a taxi to 03 2657 Koontz Lane")).toEqual([]);
});

test("a date or a version range read by the library is not a phone", () => {
  expect(found("## [2.2.2] - 09.06.2021")).toEqual([]);
  expect(found("compare/2.2.361...2.2.362")).toEqual([]);
});

test("more providers' API keys: GitLab, SendGrid, PyPI, npm, Hugging Face, Slack's other prefixes", () => {
  const gitlab = `glpat-${"a1B2c3D4e5".repeat(2)}`;
  expect(found(`token ${gitlab}`)).toEqual([`api_key:${gitlab}`]);
  const sendgrid = `SG.${"a".repeat(22)}.${"b".repeat(43)}`;
  expect(found(sendgrid)).toEqual([`api_key:${sendgrid}`]);
  const pypi = `pypi-AgEIcHlwaS5vcmc${"x".repeat(60)}`;
  expect(found(pypi)).toEqual([`api_key:${pypi}`]);
  const npm = `npm_${"A1b2C3d4E5f6".repeat(3)}`;
  expect(found(npm)).toEqual([`api_key:${npm}`]);
  const hf = `hf_${"abcdefghijklmnopq".repeat(2)}`;
  expect(found(hf)).toEqual([`api_key:${hf}`]);
  expect(found("xoxe-1-abcdefghijklmn")).toEqual(["api_key:xoxe-1-abcdefghijklmn"]);
  // A fixed-length GitLab kind of the wrong length, or a prefix alone, is not a key.
  expect(found(`glptt-${"a".repeat(30)}`)).toEqual([]);
  expect(found("glpat-short")).toEqual([]);
});

test("a JWT without its signature (unsecured, or cut after the payload)", () => {
  const token = "eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0.eyJzdWIiOiIxMjM0NTY3ODkwIn0";
  expect(found(`Authorization: Bearer ${token}`)).toEqual([`jwt:${token}`]);
  expect(found(`${token}.`)).toEqual([`jwt:${token}.`]);
  // A header alone is not a token.
  expect(found("eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0")).toEqual([]);
});

// Issue #31, from gitleaks' rule definitions (cmd/generate/config/rules/{slack,aws,gitlab,sendgrid}.go).
test("Slack app-level tokens, configuration tokens and webhook URLs", () => {
  const app = "xapp-1-A012ABCDEFG-1234567890123-0123456789abcdef0123456789abcdef";
  expect(found(`SLACK_APP_TOKEN=${app}`)).toEqual([`api_key:${app}`]);
  const config = `xoxe.xoxp-1-${"Mi0yLTM0MTQwNDE0MDE3Ni0".repeat(7)}abcd`;
  expect(found(`"access_token": "${config}"`)).toEqual([`api_key:${config}`]);
  const hook = "https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX";
  expect(found(`post to ${hook} daily`)).toEqual([`api_key:${hook}`]);
  const workflow =
    "https://hooks.slack.com/workflows/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";
  expect(found(workflow)).toEqual([`api_key:${workflow}`]);
  // The webhook page without a credential in its path, and a short "xapp-" word, are not keys.
  expect(found("see https://hooks.slack.com/services/ and xapp-1-demo")).toEqual([]);
});

test("Amazon Bedrock API keys, long- and short-lived", () => {
  const long = `ABSKQmVkcm9ja0FQSUtleS1${"a1B2c3D4".repeat(14)}=`;
  expect(found(`AWS_BEARER_TOKEN_BEDROCK=${long}`)).toEqual([`api_key:${long}`]);
  const short =
    "bedrock-api-key-YmVkcm9jay5hbWF6b25hd3MuY29tLz9BY3Rpb249Q2FsbFdpdGhCZWFyZXJUb2tlbg%3D%3D&Version=1";
  expect(found(`token: ${short}`)).toEqual([`api_key:${short}`]);
  // "ABSK" followed by other base64, or too little of it, is not a Bedrock key.
  expect(found(`ABSK${"a1B2c3D4".repeat(14)}`)).toEqual([]);
  expect(found("ABSKQmVkcm9ja0FQSUtleS1EXAMPLE")).toEqual([]);
});

test("GitLab feature-flag client tokens and session cookies; SendGrid keys in gitleaks' wider shape", () => {
  const flag = `glffct-${"a1B2c3D4e5".repeat(2)}`;
  expect(found(`unleash token ${flag}`)).toEqual([`api_key:${flag}`]);
  const cookie = `_gitlab_session=${"0a1b2c3d".repeat(4)}`;
  expect(found(`Cookie: ${cookie}`)).toEqual([`api_key:${cookie}`]);
  const sendgrid = `SG.${"a1b2c3-_=".repeat(7)}abc`;
  expect(found(`key ${sendgrid}`)).toEqual([`api_key:${sendgrid}`]);
  // A short "SG." word and a session cookie of the wrong length are not secrets.
  expect(found("SG.test and _gitlab_session=abc123")).toEqual([]);
});

test("IBANs of countries outside the SWIFT registry: BEAC and BCEAO members, Morocco, Åland", () => {
  expect(found("RIB MA64 1234 5678 9012 3456 7890 1234")).toEqual([
    "iban:MA64 1234 5678 9012 3456 7890 1234",
  ]);
  expect(found("IBAN GA2740001090000123456789012")).toEqual(["iban:GA2740001090000123456789012"]);
  expect(found("ne03 ne00 1234 5678 9012 3456 7890")).toEqual(["iban:ne03 ne00 1234 5678 9012 3456 7890"]);
  expect(found("AX56 9876 5400 0012 34")).toEqual(["iban:AX56 9876 5400 0012 34"]);
  // One digit off, or a length the country does not use, and mod-97 or the length refuses it.
  expect(found("RIB MA64 1234 5678 9012 3456 7890 1235")).toEqual([]);
  expect(found("AX56 9876 5400 0012 345")).toEqual([]);
});

test("a phone under its label on the line above, and a NANP extension with no space", () => {
  expect(found("Personal Info:\nPhone:\n71-42-55-18\n")).toEqual(["phone:71-42-55-18"]);
  expect(found("Fax:\n  512 7730\n")).toEqual(["phone:512 7730"]);
  expect(found("desk +1-415-222-9183x412")).toEqual(["phone:+1-415-222-9183x412"]);
  expect(found("(415)222-9183x0412 mobile")).toEqual(["phone:(415)222-9183x0412"]);
  // A label two lines up, or a word that is no phone word, says nothing.
  expect(found("Phone:\n\n71-42-55-18")).toEqual([]);
  expect(found("Invoice:\n71-42-55-18")).toEqual([]);
});

test("E.123 trunk-prefix forms: +CC (0) ... and a national number starting with 0", () => {
  expect(found("Desk: +44 (0)20 7946 0958")).toEqual(["phone:+44 (0)20 7946 0958"]);
  expect(found("reach Zurich on +41 (0)44 668 18 00")).toEqual(["phone:+41 (0)44 668 18 00"]);
  expect(found("messages to 0612 845 33 71 please")).toEqual(["phone:0612 845 33 71"]);
  expect(found("my registered 047-1235578, thanks")).toEqual(["phone:047-1235578"]);
  // Other numbers in that shape: named as such, a spaced date, a list, an ISBN, a failed IBAN.
  expect(found("Order 0123 4567 89 shipped")).toEqual([]);
  expect(found("on 05 11 2021 10 30 the build ran")).toEqual([]);
  expect(found("batches 0421 0422 0423")).toEqual([]);
  expect(found("ISBN 0-306-40615-2")).toEqual([]);
  expect(found("NL91 ABNA 0417 1643 01")).toEqual([]);
});

test("digits followed by a street name are a house number whichever reading took them", () => {
  expect(found("The office is at 17031 2202 Rissik St, Pretoria, South Africa")).toEqual([]);
  expect(found("The office line in South Africa is 012 345 6789")).toEqual(["phone:012 345 6789"]);
});
