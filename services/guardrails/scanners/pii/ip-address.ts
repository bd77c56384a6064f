import { type Detector, piiFinding } from "./types.ts";

const OCTET = "(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)";
// Dotted quads; the octets and the surroundings are checked in code (a pattern that starts with a
// digit lets the regex engine skip ahead, one that starts with a look-behind does not).
const IPV4 = /\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}/g;
const OCTET_RE = new RegExp(`^${OCTET}$`);

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

/** Not part of a longer dotted run ("1.2.3.4.5" is a version or an OID, not an address). */
function standaloneQuad(text: string, start: number, end: number): boolean {
  const before = text.charCodeAt(start - 1);
  if (isDigit(before) || (before === 46 && isDigit(text.charCodeAt(start - 2)))) return false;
  const after = text.charCodeAt(end);
  if (isDigit(after) || (after === 46 && isDigit(text.charCodeAt(end + 1)))) return false;
  for (const octet of text.slice(start, end).split(".")) if (!OCTET_RE.test(octet)) return false;
  return true;
}
// Candidates only: hex groups and colons (with an optional embedded IPv4 tail and zone id); whether a
// candidate is an address is decided by `validIpv6`, which a regular expression does badly.
export const IPV6_CANDIDATE =
  /(?<![\w:.])(?:[0-9A-Fa-f]{0,4}:){2,7}(?:[0-9A-Fa-f]{1,4}|\d{1,3}(?:\.\d{1,3}){3})?(?:%[0-9A-Za-z._-]+)?(?![\w:]|\.\w)/g;
const EMBEDDED_V4 = new RegExp(`^(?:${OCTET}\\.){3}${OCTET}$`);

function hexGroup(g: string): boolean {
  return g.length >= 1 && g.length <= 4 && /^[0-9A-Fa-f]+$/.test(g);
}

function groupsValid(groups: string[], allowV4Tail: boolean): number {
  let count = 0;
  for (let i = 0; i < groups.length; i++) {
    const g = groups[i] as string;
    if (allowV4Tail && i === groups.length - 1 && g.includes(".")) {
      if (!EMBEDDED_V4.test(g)) return -1;
      count += 2;
    } else if (hexGroup(g)) {
      count += 1;
    } else {
      return -1;
    }
  }
  return count;
}

/** RFC 4291 text forms: eight groups, or fewer with exactly one "::", optionally ending in IPv4. */
export function validIpv6(candidate: string): boolean {
  const zone = candidate.indexOf("%");
  const addr = zone >= 0 ? candidate.slice(0, zone) : candidate;
  const halves = addr.split("::");
  if (halves.length > 2) return false;
  if (halves.length === 1) return groupsValid(addr.split(":"), true) === 8;
  const [head, tail] = halves as [string, string];
  const left = head === "" ? 0 : groupsValid(head.split(":"), false);
  const right = tail === "" ? 0 : groupsValid(tail.split(":"), true);
  if (left < 0 || right < 0) return false;
  // "::" alone (the unspecified address) carries no information worth redacting.
  return left + right <= 7 && left + right > 0;
}

/**
 * Where IPv6 candidates can start: every candidate holds two colons at most five apart (a group is
 * at most four hex digits) and starts at most four characters before the first of them. -1: none
 * (most texts with a colon have it in prose, "note: ..."; the pattern is then not searched at all).
 */
export function ipv6CandidatesFrom(text: string): number {
  let previous = -6;
  for (let at = text.indexOf(":"); at >= 0; at = text.indexOf(":", at + 1)) {
    if (at - previous <= 5) return Math.max(0, previous - 4);
    previous = at;
  }
  return -1;
}

export const detectIpAddresses: Detector = (text, out) => {
  if (text.indexOf(".") >= 0) {
    IPV4.lastIndex = 0;
    for (let m = IPV4.exec(text); m !== null; m = IPV4.exec(text)) {
      const end = m.index + m[0].length;
      if (standaloneQuad(text, m.index, end)) out.push(piiFinding("ip_address", 0.8, m.index, end));
      else IPV4.lastIndex = m.index + 1;
    }
  }
  const from = ipv6CandidatesFrom(text);
  if (from >= 0) {
    IPV6_CANDIDATE.lastIndex = from;
    for (let m = IPV6_CANDIDATE.exec(text); m !== null; m = IPV6_CANDIDATE.exec(text)) {
      if (validIpv6(m[0])) out.push(piiFinding("ip_address", 0.85, m.index, m.index + m[0].length));
    }
  }
};
