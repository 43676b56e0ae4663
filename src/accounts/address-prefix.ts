/**
 * The network a client address belongs to, for limits and counts that one person should not multiply by asking
 * a neighbour's address: the /24 of an IPv4 address (IPv4-mapped IPv6 included) and the /64 of an IPv6 address.
 * Pure: text in, text out; anything unparseable is its own prefix.
 */
import { isIPv4, isIPv6 } from 'node:net';

function expandIpv6(address: string): string[] | null {
  const [head, tail] = address.split('::') as [string, string | undefined];
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  if (tail === undefined && left.length !== 8) return null;
  const missing = 8 - left.length - right.length;
  if (missing < 0) return null;
  return [...left, ...Array<string>(missing).fill('0'), ...right].map((part) => part.toLowerCase().replace(/^0+(?=.)/, ''));
}

export function addressPrefix(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  const v4 = mapped ? mapped[1]! : address;
  if (isIPv4(v4)) return `${v4.split('.').slice(0, 3).join('.')}.0/24`;
  if (isIPv6(address) && !address.includes('.')) {
    const groups = expandIpv6(address.split('%')[0]!);
    if (groups) return `${groups.slice(0, 4).join(':')}::/64`;
  }
  return address;
}
