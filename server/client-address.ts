// The address of the client of a request: the socket's peer, or, when that peer is a proxy the
// operator trusts (TRUSTED_PROXIES), the address that proxy put in X-Forwarded-For. The header is read
// right to left, skipping trusted hops, as Express's proxy-addr does: the entries a client wrote itself
// sit to the left of those its proxies appended, so only the first untrusted hop can be believed.
// ipaddr.js (the parser behind proxy-addr) does the address and CIDR arithmetic.
import ipaddr from "ipaddr.js";

type Range = [ipaddr.IPv4 | ipaddr.IPv6, number];

/** Parses TRUSTED_PROXIES entries (addresses or CIDR ranges); throws on a malformed one. */
export function parseTrustedProxies(entries: readonly string[]): Range[] {
  return entries.map((entry) => {
    if (entry.includes("/")) return ipaddr.parseCIDR(entry);
    const address = ipaddr.process(entry);
    return [address, address.kind() === "ipv4" ? 32 : 128];
  });
}

function trusted(address: string, ranges: Range[]): boolean {
  if (!ipaddr.isValid(address)) return false;
  const parsed = ipaddr.process(address);
  return ranges.some(([range, bits]) => parsed.kind() === range.kind() && parsed.match(range, bits));
}

/** Normalised (IPv4-mapped IPv6 as IPv4), so one client has one key whatever the socket family. */
const normal = (address: string) => (ipaddr.isValid(address) ? ipaddr.process(address).toString() : address);

export function clientAddress(
  socketAddress: string | undefined,
  forwardedFor: string | null,
  ranges: Range[],
): string | undefined {
  if (!socketAddress) return undefined;
  let current = socketAddress;
  if (ranges.length > 0 && forwardedFor) {
    const hops = forwardedFor
      .split(",")
      .map((hop) => hop.trim())
      .filter(Boolean);
    while (trusted(current, ranges) && hops.length > 0) {
      const next = hops.pop();
      if (next === undefined || !ipaddr.isValid(next)) break;
      current = next;
    }
  }
  return normal(current);
}
