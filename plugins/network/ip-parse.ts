/**
 * Parsers of the network programs' output as Salt's network module reads it: `ip addr show`
 * (salt.utils.network._interfaces_ip), `netstat`/`ss -tulpnea`, the routing tables of `netstat -rn`
 * and `ip route`, and /proc/net/tcp.
 */
import { formatIp, parseNetwork, prefixToNetmask } from 'brine/plugin';

export interface InetAddr {
  address: string;
  netmask: string;
  broadcast: string | null;
  label: string;
  type?: string;
}
export interface Inet6Addr {
  address: string;
  prefixlen: string;
  scope: string | null;
  type?: string;
}
export interface InterfaceData {
  up?: boolean;
  parent?: string;
  hwaddr?: string;
  inet?: InetAddr[];
  inet6?: Inet6Addr[];
  secondary?: (InetAddr | Inet6Addr)[];
}

/** Salt's _interfaces_ip over `ip link show` and `ip addr show` output. */
export function parseIpAddr(out: string): Record<string, InterfaceData> {
  const ret: Record<string, InterfaceData> = {};
  // Python's re.split on "\r?\n\d": the split eats the first digit of each interface index.
  for (const group of out.split(/\r?\n\d/)) {
    let iface: string | null = null;
    const data: InterfaceData = {};
    for (const line of group.split(/\r?\n/)) {
      if (!line.includes(' ')) continue;
      const m = /^\d*:\s+([\w.-]+)(?:@)?([\w.-]+)?:\s+<(.+)>/.exec(line);
      if (m) {
        iface = m[1];
        data.up = m[3].split(',').includes('UP');
        if (m[2]) data.parent = m[2];
        continue;
      }
      const cols = line.trim().split(/\s+/);
      if (cols.length < 2) continue;
      const [type, value] = cols;
      const label = cols[cols.length - 1];
      if (type === 'inet' || type === 'inet6') {
        const [ip, cidr] = value.includes('/') ? value.split('/') : [value, '32'];
        const secondary = cols.includes('secondary');
        if (type === 'inet') {
          const brd = cols.includes('brd') ? cols[cols.indexOf('brd') + 1] : null;
          const addr: InetAddr = { address: ip, netmask: prefixToNetmask(Number(cidr)), broadcast: brd, label };
          if (secondary) (data.secondary ??= []).push({ type, ...addr });
          else (data.inet ??= []).push(addr);
        } else {
          const scope = cols.includes('scope') ? cols[cols.indexOf('scope') + 1] : null;
          const addr: Inet6Addr = { address: ip, prefixlen: cidr, scope };
          if (secondary) (data.secondary ??= []).push({ type, ...addr });
          else (data.inet6 ??= []).push(addr);
        }
      } else if (type.startsWith('link')) data.hwaddr = value;
    }
    if (iface) ret[iface] = data;
  }
  return ret;
}

export type Connection = Record<string, string | number>;

/** Salt's _netstat_linux over `netstat -tulpnea`. */
export function parseNetstat(out: string): Connection[] {
  const ret: Connection[] = [];
  for (const line of out.split('\n')) {
    const c = line.trim().split(/\s+/);
    if (line.startsWith('tcp')) {
      ret.push({
        proto: c[0],
        'recv-q': c[1],
        'send-q': c[2],
        'local-address': c[3],
        'remote-address': c[4],
        state: c[5],
        user: c[6],
        inode: c[7],
        program: c[8],
      });
    }
    if (line.startsWith('udp')) {
      ret.push({
        proto: c[0],
        'recv-q': c[1],
        'send-q': c[2],
        'local-address': c[3],
        'remote-address': c[4],
        user: c[5],
        inode: c[6],
        program: c[7],
      });
    }
  }
  return ret;
}

/** Salt's _ss_linux over `ss -tulpnea` (user and inode stay 0 when ss does not say). */
export function parseSs(out: string): Connection[] {
  const ret: Connection[] = [];
  for (const line of out.split('\n')) {
    const c = line.trim().split(/\s+/);
    let user: string | number = 0;
    let inode: string | number = 0;
    let program = '';
    if (line.startsWith('tcp') || line.startsWith('udp')) {
      for (let i = 6; i < c.length - 1; i++) {
        const fields = c[i].split(':');
        if (fields[0] === 'users') program = fields[1].split(',')[0].split('"')[1];
        if (fields[0] === 'uid') user = fields[1];
        if (fields[0] === 'ino') inode = fields[1];
      }
    }
    const base = { proto: c[0], 'recv-q': c[2], 'send-q': c[3], 'local-address': c[4], 'remote-address': c[5] };
    if (line.startsWith('tcp')) ret.push({ ...base, state: c[1] === 'ESTAB' ? 'ESTABLISHED' : c[1], user, inode, program });
    if (line.startsWith('udp')) ret.push({ ...base, user, inode, program });
  }
  return ret;
}

export interface Route {
  addr_family: 'inet' | 'inet6';
  destination: string;
  gateway: string;
  netmask: string;
  flags: string;
  interface: string;
}

/** Salt's _netstat_route_linux over `netstat -A inet -rn` and `netstat -A inet6 -rn`, both without their two header lines. */
export function parseNetstatRoutes(inet: string, inet6: string): Route[] {
  const ret: Route[] = [];
  for (const line of inet.split('\n')) {
    const c = line.trim().split(/\s+/);
    if (c.length < 8) continue;
    ret.push({ addr_family: 'inet', destination: c[0], gateway: c[1], netmask: c[2], flags: c[3], interface: c[7] });
  }
  for (const line of inet6.split('\n')) {
    const c = line.trim().split(/\s+/);
    if (c.length === 6 || c.length === 7) {
      ret.push({ addr_family: 'inet6', destination: c[0], gateway: c[1], netmask: '', flags: c[2], interface: c[c.length - 1] });
    }
  }
  return ret;
}

const SKIPPED_IP6_TYPES = ['unicast', 'broadcast', 'throw', 'unreachable', 'prohibit', 'blackhole', 'nat', 'anycast', 'multicast'];

/** Salt's _ip_route_linux over `ip -4 route show table main` and `ip -6 route show table all`. */
export function parseIpRoutes(inet: string, inet6: string): Route[] {
  const ret: Route[] = [];
  const dev = (c: string[], at: number): string => (c[at] === 'dev' ? c[at + 1] : '');
  for (const line of inet.split('\n')) {
    const c = line.trim().split(/\s+/);
    if (!c[0] || c[0] === 'unreachable') continue;
    if (c[0] === 'default') {
      ret.push({ addr_family: 'inet', destination: '0.0.0.0', gateway: c[2], netmask: '0.0.0.0', flags: 'UG', interface: dev(c, 3) });
    } else {
      const net = parseNetwork(c[0]);
      ret.push({
        addr_family: 'inet',
        destination: net ? formatIp({ version: net.version, value: net.network }) : c[0],
        gateway: '0.0.0.0',
        netmask: net ? prefixToNetmask(net.prefix) : '',
        flags: 'U',
        interface: dev(c, 1),
      });
    }
  }
  for (const line of inet6.split('\n')) {
    const c = line.trim().split(/\s+/);
    if (!c[0] || SKIPPED_IP6_TYPES.includes(c[0])) continue;
    if (c[0] === 'default') {
      ret.push({ addr_family: 'inet6', destination: '::/0', gateway: c[2], netmask: '', flags: 'UG', interface: dev(c, 3) });
    } else if (c[0] === 'local') {
      ret.push({ addr_family: 'inet6', destination: `${c[1]}/128`, gateway: '::', netmask: '', flags: 'U', interface: dev(c, 2) });
    } else {
      ret.push({ addr_family: 'inet6', destination: c[0], gateway: '::', netmask: '', flags: 'U', interface: dev(c, 1) });
    }
  }
  return ret;
}

/** Salt's hex2ip(hex, invert=True) for /proc/net/tcp{,6} addresses. */
export function procHexIp(hex: string): string {
  if (hex.length === 32) {
    const words: string[] = [];
    for (let i = 0; i < 32; i += 8) {
      const p = hex.slice(i, i + 8).match(/../g)!;
      words.push(`${p[3]}${p[2]}`, `${p[1]}${p[0]}`);
    }
    const value = words.reduce((acc, w) => (acc << 16n) | BigInt(parseInt(w, 16)), 0n);
    // An IPv4-mapped address is written as the IPv4 address.
    if (value >> 32n === 0xffffn) return formatIp({ version: 4, value: value & 0xffffffffn });
    return formatIp({ version: 6, value });
  }
  const n = parseInt(hex, 16);
  if (Number.isNaN(n)) return hex;
  return [n & 255, (n >>> 8) & 255, (n >>> 16) & 255, (n >>> 24) & 255].join('.');
}

export interface TcpConnection {
  local_addr: string;
  local_port: number;
  remote_addr: string;
  remote_port: number;
}

/** Salt's active_tcp over /proc/net/tcp and tcp6: the ESTABLISHED (state 01) connections. */
export function parseProcTcp(texts: string[]): TcpConnection[] {
  const ret: TcpConnection[] = [];
  for (const text of texts) {
    for (const line of text.split('\n')) {
      const c = line.trim().split(/\s+/);
      if (!c[0] || c[0] === 'sl' || c.length < 4) continue;
      if (parseInt(c[3], 16) !== 1) continue;
      const [la, lp] = c[1].split(':');
      const [ra, rp] = c[2].split(':');
      ret.push({ local_addr: procHexIp(la), local_port: parseInt(lp, 16), remote_addr: procHexIp(ra), remote_port: parseInt(rp, 16) });
    }
  }
  return ret;
}
