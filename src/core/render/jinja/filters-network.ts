/**
 * Salt's network filters (salt/utils/network.py): is_ip, is_ipv4, is_ipv6, ipaddr, ipv4, ipv6,
 * ipwrap, ip_host, network_hosts, network_size, filter_by_networks, with Python's `ipaddress`
 * reading of addresses, interfaces (`10.0.0.5/24`) and networks.
 */
import { type IpAddress, formatIp, inNetwork as ipInNetwork, isMapping, parseIp, parseNetwork, parsePrefix } from '../../pycompat';
import { TemplateRuntimeError } from './template-error';

type Fn = (...args: unknown[]) => unknown;

interface Interface {
  address: IpAddress;
  prefix: number;
  /** str(ip_address) for a bare address, str(ip_interface) for `addr/prefix`. */
  text: string;
}

const bitsOf = (version: 4 | 6) => (version === 4 ? 32 : 128);
const format = (version: 4 | 6, value: bigint) => formatIp({ version, value });

/** ipaddress.ip_address, else ipaddress.ip_interface (Salt's `_is_ipv`). */
function readIp(value: unknown): Interface | undefined {
  if (typeof value !== 'string') return undefined;
  const addr = parseIp(value);
  if (addr) return { address: addr, prefix: bitsOf(addr.version), text: formatIp(addr) };
  const slash = value.indexOf('/');
  if (slash < 0) return undefined;
  const base = parseIp(value.slice(0, slash));
  if (!base) return undefined;
  const prefix = parsePrefix(value.slice(slash + 1), base.version);
  if (prefix === null) return undefined;
  return { address: base, prefix, text: `${formatIp(base)}/${prefix}` };
}

function noOptions(name: string, options: unknown): void {
  if (options !== undefined && options !== null && options !== '')
    throw new TemplateRuntimeError(
      `brine's ${name} filter does not take options (${String(options)}) yet: filter the list in the template instead`,
    );
}

function ipv(value: unknown, version: 4 | 6): unknown {
  const one = (v: unknown) => {
    const ip = readIp(v);
    return ip && ip.address.version === version ? ip.text : null;
  };
  if (typeof value === 'string') return one(value);
  if (Array.isArray(value)) return value.map(one).filter((x) => x !== null);
  return null;
}

function ipaddr(value: unknown, options?: unknown): unknown {
  noOptions('ipaddr', options);
  const v4 = ipv(value, 4);
  const v6 = ipv(value, 6);
  if (v4 === null || v6 === null) return v4 || v6;
  if (Array.isArray(v4) && Array.isArray(v6)) return [...v4, ...v6];
  return v4 || v6;
}

/** Salt's `_filter_ipaddr` then `fn` on each, one answer for a string, a list for a list. */
function perNetwork(name: string, fn: (ip: Interface) => unknown): Fn {
  return (value: unknown, options?: unknown, version?: unknown) => {
    noOptions(name, options);
    const found = version === 4 || version === 6 ? ipv(value, version) : ipaddr(value);
    if (found === null || found === '' || (Array.isArray(found) && found.length === 0)) return null;
    const list = (Array.isArray(found) ? found : [found]) as string[];
    const out = list.map((text) => fn(readIp(text)!));
    return Array.isArray(value) ? out : out[0];
  };
}

function networkOf(ip: Interface): { base: bigint; size: bigint; version: 4 | 6 } {
  const bits = bitsOf(ip.address.version);
  const size = 1n << BigInt(bits - ip.prefix);
  return { base: ip.address.value & ~(size - 1n), size, version: ip.address.version };
}

function hosts(ip: Interface): string[] {
  const { base, size, version } = networkOf(ip);
  if (size > 65536n) throw new TemplateRuntimeError(`network_hosts: ${ip.text} has ${size} addresses, too many to list`);
  const bits = bitsOf(version);
  // Python 3.11: a /32 (/128) is its one address, a /31 (/127) both; otherwise the network and
  // (IPv4) broadcast addresses are left out.
  if (ip.prefix >= bits - 1) return Array.from({ length: Number(size) }, (_x, i) => format(version, base + BigInt(i)));
  const first = base + 1n;
  const last = version === 4 ? base + size - 2n : base + size - 1n;
  const out: string[] = [];
  for (let v = first; v <= last; v++) out.push(format(version, v));
  return out;
}

export function networkFilters(): Record<string, Fn> {
  const isIpv = (version: 4 | 6) => (v: unknown, options?: unknown) => {
    noOptions(`is_ipv${version}`, options);
    return typeof ipv(v, version) === 'string';
  };
  return {
    is_ip: (v: unknown, options?: unknown) => isIpv(4)(v, options) || isIpv(6)(v, options),
    is_ipv4: isIpv(4),
    is_ipv6: isIpv(6),
    ipaddr,
    ipv4: (v: unknown, options?: unknown) => (noOptions('ipv4', options), ipv(v, 4)),
    ipv6: (v: unknown, options?: unknown) => (noOptions('ipv6', options), ipv(v, 6)),
    ipwrap(data: unknown) {
      const wrap = (x: unknown) => {
        const ip = typeof x === 'string' ? parseIp(x.replace(/^\[+/, '').replace(/\]+$/, '')) : null;
        return ip && ip.version === 6 ? `[${formatIp(ip)}]` : x;
      };
      return Array.isArray(data) ? data.map(wrap) : wrap(data);
    },
    ip_host: perNetwork('ip_host', (ip) => `${formatIp(ip.address)}/${ip.prefix}`),
    network_hosts: perNetwork('network_hosts', hosts),
    network_size: perNetwork('network_size', (ip) => Number(networkOf(ip).size)),
    filter_by_networks(values: unknown, networks: unknown) {
      if (networks === null || networks === undefined) return values;
      const nets = (Array.isArray(networks) ? networks : [networks]).map((n) => {
        const net = parseNetwork(String(n), true);
        if (!net) throw new TemplateRuntimeError(`'${String(n)}' does not appear to be an IPv4 or IPv6 network`);
        return net;
      });
      const pick = (ips: unknown) =>
        (Array.isArray(ips) ? ips : []).flatMap((x) => {
          const a = parseIp(String(x));
          if (!a) throw new TemplateRuntimeError(`'${String(x)}' does not appear to be an IPv4 or IPv6 address`);
          return nets.filter((n) => ipInNetwork(a, n)).map(() => x);
        });
      if (isMapping(values)) return Object.fromEntries(Object.entries(values).map(([k, v]) => [k, pick(v)]));
      return pick(values);
    },
  };
}
