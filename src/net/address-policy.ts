/**
 * Which IP addresses an outbound fetch on a customer's behalf may connect to. Only globally routable unicast
 * passes: loopback, private, link-local, CGNAT, multicast, broadcast, reserved, documentation and benchmarking
 * ranges, IPv6 unique-local and site-local are refused, and IPv6 forms embedding an IPv4 address
 * (IPv4-mapped, IPv4-compatible, NAT64 64:ff9b::/96, 6to4 2002::/16) are judged by the embedded address.
 * Teredo and local-use NAT64 are refused outright (their embedded address cannot be trusted).
 */
import net from 'node:net';

/** [network, prefix length, reason] for IPv4. */
const BLOCKED_V4: [string, number, string][] = [
  ['0.0.0.0', 8, 'this-network'],
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'cgnat'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link-local'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'reserved'],
  ['192.0.2.0', 24, 'documentation'],
  ['192.31.196.0', 24, 'reserved'],
  ['192.52.193.0', 24, 'reserved'],
  ['192.88.99.0', 24, 'reserved'],
  ['192.168.0.0', 16, 'private'],
  ['192.175.48.0', 24, 'reserved'],
  ['198.18.0.0', 15, 'benchmarking'],
  ['198.51.100.0', 24, 'documentation'],
  ['203.0.113.0', 24, 'documentation'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved'],
];

function v4ToInt(address: string): number {
  return address.split('.').reduce((sum, part) => sum * 256 + Number(part), 0);
}

function v4FromBytes(bytes: number[]): string {
  return bytes.join('.');
}

/** The reason an IPv4 address (dotted quad) is refused, or null when it is public. */
export function blockedV4(address: string): string | null {
  const value = v4ToInt(address);
  if (value === 0xffffffff) return 'broadcast';
  for (const [network, prefix, reason] of BLOCKED_V4) {
    const size = 2 ** (32 - prefix);
    const start = v4ToInt(network);
    if (value >= start && value < start + size) return reason;
  }
  return null;
}

/** The 16 bytes of an IPv6 address (any textual form Node accepts, zone id removed), or null. */
export function v6Bytes(input: string): number[] | null {
  const address = input.replace(/%.*$/, '');
  if (net.isIPv6(address) === false) return null;
  let text = address.toLowerCase();
  // A trailing dotted IPv4 part becomes two hex groups.
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const parts = dotted[1]!.split('.').map(Number);
    text =
      text.slice(0, -dotted[1]!.length) + `${((parts[0]! << 8) | parts[1]!).toString(16)}:${((parts[2]! << 8) | parts[3]!).toString(16)}`;
  }
  const [head, tail] = text.includes('::') ? text.split('::') : [text, undefined];
  const headGroups = head ? head.split(':') : [];
  const tailGroups = tail === undefined ? [] : tail ? tail.split(':') : [];
  const missing = 8 - headGroups.length - tailGroups.length;
  if (tail === undefined ? missing !== 0 : missing < 0) return null;
  const groups = [...headGroups, ...new Array<string>(tail === undefined ? 0 : missing).fill('0'), ...tailGroups];
  const bytes: number[] = [];
  for (const group of groups) {
    const value = parseInt(group, 16);
    bytes.push(value >> 8, value & 0xff);
  }
  return bytes;
}

function startsWith(bytes: number[], prefix: number[], bits: number): boolean {
  for (let bit = 0; bit < bits; bit++) {
    const byte = bit >> 3;
    const mask = 0x80 >> (bit & 7);
    if ((bytes[byte]! & mask) !== (prefix[byte]! & mask)) return false;
  }
  return true;
}

const V6 = (text: string) => v6Bytes(text)!;

/** The reason an IPv6 address is refused, or null when it is public. */
export function blockedV6(address: string): string | null {
  const bytes = v6Bytes(address);
  if (!bytes) return 'invalid';
  const zeros = (count: number) => bytes.slice(0, count).every((byte) => byte === 0);
  const embedded = (from: number) => v4FromBytes(bytes.slice(from, from + 4));
  if (bytes.every((byte) => byte === 0)) return 'unspecified';
  if (zeros(15) && bytes[15] === 1) return 'loopback';
  // ::ffff:a.b.c.d (mapped), ::ffff:0:a.b.c.d (translated), ::a.b.c.d (compatible): the IPv4 address decides.
  if (zeros(10) && bytes[10] === 0xff && bytes[11] === 0xff) return blockedV4(embedded(12)) && `ipv4-mapped ${blockedV4(embedded(12))}`;
  if (zeros(8) && bytes[8] === 0xff && bytes[9] === 0xff && bytes[10] === 0 && bytes[11] === 0)
    return blockedV4(embedded(12)) && `ipv4-translated ${blockedV4(embedded(12))}`;
  if (zeros(12)) return blockedV4(embedded(12)) ? `ipv4-compatible ${blockedV4(embedded(12))}` : 'ipv4-compatible';
  if (startsWith(bytes, V6('64:ff9b::'), 96)) return blockedV4(embedded(12)) && `nat64 ${blockedV4(embedded(12))}`;
  if (startsWith(bytes, V6('64:ff9b:1::'), 48)) return 'nat64-local';
  if (startsWith(bytes, V6('2002::'), 16)) return blockedV4(embedded(2)) && `6to4 ${blockedV4(embedded(2))}`;
  if (startsWith(bytes, V6('2001::'), 32)) return 'teredo';
  if (startsWith(bytes, V6('2001:db8::'), 32)) return 'documentation';
  if (startsWith(bytes, V6('3fff::'), 20)) return 'documentation';
  if (startsWith(bytes, V6('2001::'), 23)) return 'reserved';
  if (startsWith(bytes, V6('fc00::'), 7)) return 'unique-local';
  if (startsWith(bytes, V6('fe80::'), 10)) return 'link-local';
  if (startsWith(bytes, V6('fec0::'), 10)) return 'site-local';
  if (startsWith(bytes, V6('ff00::'), 8)) return 'multicast';
  // Everything else outside global unicast 2000::/3 is unassigned or special.
  if (!startsWith(bytes, V6('2000::'), 3)) return 'reserved';
  return null;
}

/** The reason an address (either family) is refused, or null when a connection to it is allowed. */
export function blockedAddress(address: string): string | null {
  const family = net.isIP(address.replace(/%.*$/, ''));
  if (family === 4) return blockedV4(address);
  if (family === 6) return blockedV6(address);
  return 'invalid';
}

/** Whether `address` lies in `cidr` (`a.b.c.d/n`, `x::/n`, or a single address). */
export function inCidr(address: string, cidr: string): boolean {
  const [network, prefixText] = cidr.split('/');
  const familyA = net.isIP(address);
  const familyN = net.isIP(network ?? '');
  if (!familyA || familyA !== familyN) return false;
  if (familyA === 4) {
    const prefix = prefixText === undefined ? 32 : Number(prefixText);
    if (prefix === 0) return true;
    const mask = prefix >= 32 ? 0xffffffff : ~(2 ** (32 - prefix) - 1) >>> 0;
    return (v4ToInt(address) & mask) >>> 0 === (v4ToInt(network!) & mask) >>> 0;
  }
  const prefix = prefixText === undefined ? 128 : Number(prefixText);
  return startsWith(v6Bytes(address)!, v6Bytes(network!)!, prefix);
}
