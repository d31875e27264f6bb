/**
 * The few parts of Python's `ipaddress` that Salt's network functions rely on: parsing to a
 * number, sorting, network membership, loopback and private ranges, compressed IPv6 text.
 */
import { isIP } from 'node:net';

export interface IpAddress {
  version: 4 | 6;
  value: bigint;
}

/** An address as a number, or null when it is not an IP address. */
export function parseIp(text: string): IpAddress | null {
  const version = isIP(text);
  if (version === 4) {
    const value = text.split('.').reduce((acc, part) => (acc << 8n) | BigInt(Number(part)), 0n);
    return { version: 4, value };
  }
  if (version !== 6) return null;
  let head = text;
  // An embedded IPv4 tail (::ffff:1.2.3.4) is two groups.
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4) {
    const n = Number(parseIp(v4[1])!.value);
    head = `${text.slice(0, v4.index)}${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`;
  }
  const [left, right] = head.includes('::') ? head.split('::') : [head, undefined];
  const l = left ? left.split(':') : [];
  const r = right ? right.split(':') : [];
  const groups = right !== undefined ? [...l, ...Array(8 - l.length - r.length).fill('0'), ...r] : l;
  return { version: 6, value: groups.reduce((acc, g) => (acc << 16n) | BigInt(parseInt(g || '0', 16)), 0n) };
}

const bits = (version: 4 | 6): number => (version === 4 ? 32 : 128);

/** Text of an address number: dotted quad, or IPv6 compressed as Python's ipaddress writes it. */
export function formatIp(ip: IpAddress): string {
  if (ip.version === 4) return [24n, 16n, 8n, 0n].map((s) => String((ip.value >> s) & 255n)).join('.');
  const groups = Array.from({ length: 8 }, (_, i) => ((ip.value >> BigInt(112 - 16 * i)) & 0xffffn).toString(16));
  let best = [-1, 0];
  for (let i = 0; i < 8;) {
    if (groups[i] !== '0') {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === '0') j++;
    if (j - i > best[1] && j - i > 1) best = [i, j - i];
    i = j;
  }
  if (best[0] === -1) return groups.join(':');
  return `${groups.slice(0, best[0]).join(':')}::${groups.slice(best[0] + best[1]).join(':')}`;
}

/** Python's ordering of addresses: IPv4 before IPv6, then by value. */
export function compareIp(a: IpAddress, b: IpAddress): number {
  if (a.version !== b.version) return a.version - b.version;
  return a.value < b.value ? -1 : a.value > b.value ? 1 : 0;
}

export interface IpNetwork {
  version: 4 | 6;
  network: bigint;
  prefix: number;
}

/** `ipaddress.ip_network(cidr, strict=False)`-like parsing; null when it is not a network. */
export function parseNetwork(cidr: string, strict = false): IpNetwork | null {
  const [addr, len, ...rest] = cidr.split('/');
  if (rest.length > 0) return null;
  const ip = parseIp(addr);
  if (!ip) return null;
  let prefix = len === undefined ? bits(ip.version) : Number(len);
  if (len !== undefined && !/^\d+$/.test(len)) {
    // A dotted netmask (10.0.0.0/255.0.0.0).
    const mask = ip.version === 4 ? parseIp(len) : null;
    if (!mask) return null;
    prefix = mask.value.toString(2).replace(/0+$/, '').length;
  }
  if (prefix > bits(ip.version)) return null;
  const mask = maskOf(ip.version, prefix);
  if (strict && (ip.value & mask) !== ip.value) return null;
  return { version: ip.version, network: ip.value & mask, prefix };
}

export function maskOf(version: 4 | 6, prefix: number): bigint {
  const total = BigInt(bits(version));
  return ((1n << total) - 1n) ^ ((1n << (total - BigInt(prefix))) - 1n);
}

export function inNetwork(ip: IpAddress, net: IpNetwork): boolean {
  return ip.version === net.version && (ip.value & maskOf(net.version, net.prefix)) === net.network;
}

export function formatNetwork(net: IpNetwork): string {
  return `${formatIp({ version: net.version, value: net.network })}/${net.prefix}`;
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

/** Salt's cidr_to_ipv4_netmask for a prefix length: '255.255.255.0'. */
export function prefixToNetmask(prefix: number): string {
  return formatIp({ version: 4, value: maskOf(4, prefix) });
}
