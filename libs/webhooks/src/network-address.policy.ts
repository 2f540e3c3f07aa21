import { isIP } from 'node:net';

/**
 * Which addresses a webhook may reach. Integrators choose webhook URLs, so a
 * URL is attacker input: without this policy an endpoint like
 * http://169.254.169.254/ would turn our worker into a proxy into our own
 * network (SSRF). Everything that is not plainly a public unicast address is
 * refused, including the IPv6 forms that merely wrap an IPv4 address.
 */

type Ipv4Range = readonly [base: number, prefix: number];

function ipv4ToInt(parts: readonly number[]): number {
  return ((parts[0] << 24) >>> 0) + (parts[1] << 16) + (parts[2] << 8) + parts[3];
}

function v4(cidr: string): Ipv4Range {
  const [address, prefix] = cidr.split('/');
  return [ipv4ToInt(address.split('.').map(Number)), Number(prefix)];
}

const BLOCKED_IPV4: readonly Ipv4Range[] = [
  v4('0.0.0.0/8'), // "this network"; 0.0.0.0 reaches the local host on Linux
  v4('10.0.0.0/8'),
  v4('100.64.0.0/10'), // carrier-grade NAT, often internal in clouds
  v4('127.0.0.0/8'),
  v4('169.254.0.0/16'), // link-local, including cloud metadata 169.254.169.254
  v4('172.16.0.0/12'),
  v4('192.0.0.0/24'), // IETF protocol assignments
  v4('192.0.2.0/24'), // documentation
  v4('192.88.99.0/24'), // deprecated 6to4 relay anycast
  v4('192.168.0.0/16'),
  v4('198.18.0.0/15'), // benchmarking
  v4('198.51.100.0/24'), // documentation
  v4('203.0.113.0/24'), // documentation
  v4('224.0.0.0/4'), // multicast
  v4('240.0.0.0/4'), // reserved, including broadcast 255.255.255.255
];

function parseIpv4(ip: string): number[] | null {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(ip);
  if (!m) return null;
  const parts = m.slice(1).map(Number);
  return parts.every((p) => p <= 255) ? parts : null;
}

function isBlockedIpv4(parts: readonly number[]): boolean {
  const value = ipv4ToInt(parts);
  return BLOCKED_IPV4.some(([base, prefix]) => {
    const mask = prefix === 0 ? 0 : (~0 << (32 - prefix)) >>> 0;
    return ((value & mask) >>> 0) === ((base & mask) >>> 0);
  });
}

/** Expands any valid IPv6 text (compressed, with a dotted IPv4 tail, with a zone) to 8 hextets. */
function parseIpv6(input: string): number[] | null {
  let ip = input.toLowerCase();
  if (ip.startsWith('[') && ip.endsWith(']')) ip = ip.slice(1, -1);
  const zone = ip.indexOf('%');
  if (zone >= 0) ip = ip.slice(0, zone);
  if (isIP(ip) !== 6) return null;
  const lastColon = ip.lastIndexOf(':');
  const tail = ip.slice(lastColon + 1);
  if (tail.includes('.')) {
    const quad = parseIpv4(tail);
    if (!quad) return null;
    ip = `${ip.slice(0, lastColon + 1)}${((quad[0] << 8) | quad[1]).toString(16)}:${((quad[2] << 8) | quad[3]).toString(16)}`;
  }
  const halves = ip.split('::');
  if (halves.length > 2) return null;
  const head = halves[0] ? halves[0].split(':') : [];
  const rest = halves.length === 2 && halves[1] ? halves[1].split(':') : [];
  const groups = halves.length === 2 ? [...head, ...Array<string>(8 - head.length - rest.length).fill('0'), ...rest] : head;
  if (groups.length !== 8) return null;
  const hextets = groups.map((g) => parseInt(g, 16));
  return hextets.every((h) => Number.isInteger(h) && h >= 0 && h <= 0xffff) ? hextets : null;
}

function embeddedIpv4(h: readonly number[], highIndex: number): number[] {
  return [h[highIndex] >> 8, h[highIndex] & 0xff, h[highIndex + 1] >> 8, h[highIndex + 1] & 0xff];
}

function isBlockedIpv6(h: readonly number[]): boolean {
  const zeroUpTo = (n: number) => h.slice(0, n).every((x) => x === 0);
  // ::/128 unspecified and ::1 loopback
  if (zeroUpTo(7) && (h[7] === 0 || h[7] === 1)) return true;
  // ::ffff:a.b.c.d (mapped), ::a.b.c.d (deprecated compatible), ::ffff:0:a.b.c.d (SIIT):
  // the kernel connects to the IPv4 address inside, so judge that address.
  if (zeroUpTo(5) && (h[5] === 0xffff || h[5] === 0)) return isBlockedIpv4(embeddedIpv4(h, 6));
  if (zeroUpTo(4) && h[4] === 0xffff && h[5] === 0) return isBlockedIpv4(embeddedIpv4(h, 6));
  // 64:ff9b::/96 NAT64 translates to the embedded IPv4 address.
  if (h[0] === 0x64 && h[1] === 0xff9b && h.slice(2, 6).every((x) => x === 0)) {
    return isBlockedIpv4(embeddedIpv4(h, 6));
  }
  if (h[0] === 0x64 && h[1] === 0xff9b && h[2] === 1) return true; // 64:ff9b:1::/48 local-use NAT64
  if (h[0] === 0x100 && h[1] === 0 && h[2] === 0 && h[3] === 0) return true; // 100::/64 discard
  if (h[0] === 0x2001 && h[1] === 0) return true; // 2001::/32 Teredo tunnels
  if (h[0] === 0x2001 && h[1] === 0xdb8) return true; // documentation
  if (h[0] === 0x2002) return isBlockedIpv4(embeddedIpv4(h, 1)); // 6to4 carries an IPv4 address
  if ((h[0] & 0xfe00) === 0xfc00) return true; // fc00::/7 unique local
  if ((h[0] & 0xffc0) === 0xfe80) return true; // fe80::/10 link-local
  if ((h[0] & 0xffc0) === 0xfec0) return true; // fec0::/10 deprecated site-local
  if ((h[0] & 0xff00) === 0xff00) return true; // multicast
  return false;
}

/**
 * True for loopback, private, link-local, CGNAT, unspecified, multicast,
 * reserved and documentation addresses (IPv4 and IPv6, including IPv6 forms
 * that embed such an IPv4 address). Anything that is not an IP address at all
 * also returns true, so a caller's mistake fails closed.
 */
export function isPrivateAddress(ip: string): boolean {
  if (typeof ip !== 'string') return true;
  const quad = parseIpv4(ip);
  if (quad) return isBlockedIpv4(quad);
  const hextets = parseIpv6(ip);
  if (hextets) return isBlockedIpv6(hextets);
  return true;
}

/** `[::1]` → `::1`; other hosts unchanged. */
export function unbracketHost(hostname: string): string {
  return hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
}
