/**
 * The key a client address is counted under (login throttle, known login addresses): an IPv4
 * address as it is (an IPv4-mapped IPv6 address `::ffff:a.b.c.d` as its IPv4 address), an IPv6
 * address by its /64 network, written `xxxx:xxxx:xxxx:xxxx::/64` — one connection usually holds a
 * whole /64, so counting single IPv6 addresses would give a guesser 2^64 fresh addresses.
 * Anything else (not an IP address) is kept as it is, lower-cased.
 */
import { isIPv4, isIPv6 } from 'node:net';

export function addressKey(ip: string): string {
  const address = ip.trim().toLowerCase();
  if (isIPv4(address)) return address;
  if (!isIPv6(address)) return address;
  const groups = expandIPv6(address);
  // ::ffff:a.b.c.d (and ::ffff:xxxx:xxxx): the IPv4 address.
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) {
    return `${groups[6]! >> 8}.${groups[6]! & 0xff}.${groups[7]! >> 8}.${groups[7]! & 0xff}`;
  }
  return `${groups
    .slice(0, 4)
    .map((g) => g.toString(16))
    .join(':')}::/64`;
}

/** The eight 16-bit groups of a valid IPv6 address (a trailing dotted IPv4 part and a zone taken apart). */
function expandIPv6(address: string): number[] {
  const withoutZone = address.split('%')[0]!;
  let text = withoutZone;
  const tail: number[] = [];
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    tail.push((a << 8) | b, (c << 8) | d);
    text = text.slice(0, dotted.index);
    if (text.endsWith(':') && !text.endsWith('::')) text = text.slice(0, -1);
  }
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((g) => parseInt(g, 16)));
  const [head, rest] = text.includes('::') ? (text.split('::') as [string, string]) : [text, undefined];
  const left = parse(head);
  const right = rest === undefined ? [] : parse(rest);
  const missing = 8 - tail.length - left.length - right.length;
  return [...left, ...(rest === undefined ? [] : new Array<number>(missing).fill(0)), ...right, ...tail];
}
