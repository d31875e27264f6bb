/**
 * Python's `ipaddress`, the parts Salt relies on: strict parsing as CPython does it (no leading
 * zeros in IPv4 octets, at most one `::`), RFC 5952 text as Python prints it, networks with a
 * prefix length or a mask, membership, ordering, loopback and private ranges. The targeting
 * matcher, the minion's id resolution, the grains and the network module all read addresses here.
 */

export interface IpAddress {
  version: 4 | 6;
  value: bigint;
}

export interface IpNetwork {
  version: 4 | 6;
  network: bigint;
  prefix: number;
}

const bits = (version: 4 | 6): number => (version === 4 ? 32 : 128);

/** CPython's `IPv4Address._ip_int_from_string`: four decimal octets 0-255, no leading zeros. */
function parseIPv4Value(text: string): bigint | null {
  const parts = text.split('.');
  if (parts.length !== 4) return null;
  let value = 0n;
  for (const p of parts) {
    if (!/^\d{1,3}$/.test(p) || (p.length > 1 && p[0] === '0')) return null;
    const n = Number(p);
    if (n > 255) return null;
    value = (value << 8n) | BigInt(n);
  }
  return value;
}

/** CPython's `IPv6Address._ip_int_from_string` (an embedded IPv4 tail stands for two groups). */
function parseIPv6Value(text: string): bigint | null {
  const parts = text.split(':');
  if (parts.length < 3) return null;
  if (parts[parts.length - 1].includes('.')) {
    const v4 = parseIPv4Value(parts.pop()!);
    if (v4 === null) return null;
    parts.push((v4 >> 16n).toString(16), (v4 & 0xffffn).toString(16));
  }
  if (parts.length > 9) return null;
  let skipIndex = -1;
  for (let i = 1; i < parts.length - 1; i++) {
    if (parts[i] !== '') continue;
    if (skipIndex >= 0) return null; // at most one '::'
    skipIndex = i;
  }
  let hi: number;
  let lo: number;
  let skipped: number;
  if (skipIndex >= 0) {
    hi = skipIndex;
    lo = parts.length - skipIndex - 1;
    if (parts[0] === '' && --hi !== 0) return null; // a lone leading ':'
    if (parts[parts.length - 1] === '' && --lo !== 0) return null; // a lone trailing ':'
    skipped = 8 - (hi + lo);
    if (skipped < 1) return null;
  } else {
    if (parts.length !== 8 || parts[0] === '' || parts[7] === '') return null;
    hi = 8;
    lo = 0;
    skipped = 0;
  }
  const groups = [...parts.slice(0, hi), ...new Array<string>(skipped).fill('0'), ...parts.slice(parts.length - lo)];
  let value = 0n;
  for (const g of groups) {
    if (!/^[0-9a-fA-F]{1,4}$/.test(g)) return null;
    value = (value << 16n) | BigInt(parseInt(g, 16));
  }
  return value;
}

/** `ipaddress.ip_address(text)` as a number, or null when Python would refuse it. */
export function parseIp(text: string): IpAddress | null {
  const v4 = parseIPv4Value(text);
  if (v4 !== null) return { version: 4, value: v4 };
  const v6 = parseIPv6Value(text);
  return v6 === null ? null : { version: 6, value: v6 };
}

/** Text of an address: dotted quad, or IPv6 lower case with the longest run (2+) of zero groups as `::`. */
export function formatIp(ip: IpAddress): string {
  if (ip.version === 4) return [24n, 16n, 8n, 0n].map((s) => String((ip.value >> s) & 255n)).join('.');
  const groups = Array.from({ length: 8 }, (_, i) => ((ip.value >> BigInt(112 - 16 * i)) & 0xffffn).toString(16));
  let bestStart = -1;
  let bestLen = 0;
  for (let i = 0; i < 8;) {
    if (groups[i] !== '0') {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === '0') j++;
    if (j - i > bestLen) {
      bestStart = i;
      bestLen = j - i;
    }
    i = j;
  }
  if (bestLen < 2) return groups.join(':');
  return `${groups.slice(0, bestStart).join(':')}::${groups.slice(bestStart + bestLen).join(':')}`;
}

/** Python's ordering of addresses: IPv4 before IPv6, then by value. */
export function compareIp(a: IpAddress, b: IpAddress): number {
  if (a.version !== b.version) return a.version - b.version;
  return a.value < b.value ? -1 : a.value > b.value ? 1 : 0;
}

/**
 * The prefix length a network's `/...` part stands for, as CPython's `_make_netmask` reads it: a
 * decimal length, or for IPv4 also a netmask (255.255.255.0) or a host mask (0.0.0.255).
 */
export function parsePrefix(text: string, version: 4 | 6): number | null {
  if (/^\d+$/.test(text)) {
    const n = Number(text);
    return n <= bits(version) ? n : null;
  }
  if (version === 6) return null;
  const mask = parseIPv4Value(text);
  if (mask === null) return null;
  const asPrefix = (m: bigint): number | null => {
    const ones = m.toString(2).padStart(32, '0');
    return /^1*0*$/.test(ones) ? (ones.indexOf('0') === -1 ? 32 : ones.indexOf('0')) : null;
  };
  return asPrefix(mask) ?? asPrefix(mask ^ 0xffffffffn);
}

export function maskOf(version: 4 | 6, prefix: number): bigint {
  const total = BigInt(bits(version));
  return ((1n << total) - 1n) ^ ((1n << (total - BigInt(prefix))) - 1n);
}

/**
 * `ipaddress.ip_network(cidr, strict=...)`: null when it is not a network, or (strict) when host
 * bits are set.
 */
export function parseNetwork(cidr: string, strict = false): IpNetwork | null {
  const [addr, len, ...rest] = cidr.split('/');
  if (rest.length > 0) return null;
  const ip = parseIp(addr);
  if (!ip) return null;
  const prefix = len === undefined ? bits(ip.version) : parsePrefix(len, ip.version);
  if (prefix === null) return null;
  const mask = maskOf(ip.version, prefix);
  if (strict && (ip.value & mask) !== ip.value) return null;
  return { version: ip.version, network: ip.value & mask, prefix };
}

export function inNetwork(ip: IpAddress, net: IpNetwork): boolean {
  return ip.version === net.version && (ip.value & maskOf(net.version, net.prefix)) === net.network;
}

export function formatNetwork(net: IpNetwork): string {
  return `${formatIp({ version: net.version, value: net.network })}/${net.prefix}`;
}

/** Salt's cidr_to_ipv4_netmask for a prefix length: '255.255.255.0'. */
export function prefixToNetmask(prefix: number): string {
  return formatIp({ version: 4, value: maskOf(4, prefix) });
}

const LOOPBACK = ['127.0.0.0/8', '::1/128'].map((n) => parseNetwork(n)!);

/** Python 3.10's ipaddress private ranges (is_private). */
const PRIVATE = [
  '0.0.0.0/8',
  '10.0.0.0/8',
  '127.0.0.0/8',
  '169.254.0.0/16',
  '172.16.0.0/12',
  '192.0.0.0/29',
  '192.0.0.170/31',
  '192.0.2.0/24',
  '192.168.0.0/16',
  '198.18.0.0/15',
  '198.51.100.0/24',
  '203.0.113.0/24',
  '240.0.0.0/4',
  '255.255.255.255/32',
  '::1/128',
  '::/128',
  '::ffff:0:0/96',
  '100::/64',
  '2001::/23',
  '2001:2::/48',
  '2001:db8::/32',
  '2001:10::/28',
  'fc00::/7',
  'fe80::/10',
].map((n) => parseNetwork(n)!);

export const isLoopback = (ip: IpAddress): boolean => LOOPBACK.some((n) => inNetwork(ip, n));
export const isPrivate = (ip: IpAddress): boolean => PRIVATE.some((n) => inNetwork(ip, n));
