import { createSocket } from 'node:dgram';
import { parseTraceroute, tracerouteVersion } from './traceroute';
import { lookup } from 'node:dns/promises';
import { Socket, isIP } from 'node:net';
import {
  CommandExecutionError,
  Fn,
  IGrains,
  IHost,
  IShell,
  Module,
  arg,
  compareIp,
  fnmatch,
  formatIp,
  formatNetwork,
  inject,
  inNetwork,
  isLoopback,
  isPrivate,
  parseIp,
  parseNetwork,
  type IpAddress,
} from 'brine/plugin';
import {
  parseIpAddr,
  parseIpRoutes,
  parseNetstat,
  parseNetstatRoutes,
  parseProcTcp,
  parseSs,
  type Connection,
  type InterfaceData,
  type Route,
  type TcpConnection,
} from './ip-parse';

/** Salt's sanitize_host: letters, digits, '.', '-' and '_' of the first 255 characters. */
const sanitizeHost = (host: string): string => [...host.slice(0, 255)].filter((c) => /[A-Za-z0-9._-]/.test(c)).join('');

const FAMILY = { family: arg.string({ optional: true, description: "'inet' or 'inet6'; all families when left out" }) };

/** Salt's split_input: a comma-separated string or a list. */
function splitInput(value: unknown): string[] {
  if (Array.isArray(value)) return value.map(String);
  return String(value)
    .split(',')
    .map((s) => s.trim());
}

/** ipaddress.ip_address(text), or Salt's error for text that is not an address. */
function ipOf(text: string): IpAddress {
  const ip = parseIp(text);
  if (!ip) throw new CommandExecutionError(`'${text}' does not appear to be an IPv4 or IPv6 address`);
  return ip;
}

/**
 * Salt's `network` module for Linux: interfaces from `ip`, routes from `netstat` (or `ip route`),
 * sockets from `netstat`/`ss`, established TCP connections from /proc/net/tcp, ping through the
 * `ping` program and connect through a socket of the minion, with Salt's return shapes.
 */
@Module('network', {
  doc: 'Module for gathering and managing network information',
  available: (grains) =>
    grains.kernel !== 'Windows' || 'The network execution module cannot be loaded on Windows: use win_network instead.',
})
export class NetworkModule {
  constructor(
    @inject(IShell) private readonly shell: IShell,
    @inject(IHost) private readonly host: IHost,
    @inject(IGrains) private readonly grains: IGrains,
  ) {}

  private get linux(): boolean {
    return this.grains.get('kernel') === 'Linux';
  }

  /** Salt's cmd.run: stdout and stderr together, trailing whitespace stripped. */
  private async cmdRun(cmd: string | string[], pythonShell = false): Promise<string> {
    return (await this.shell.run(cmd, { pythonShell, mergeStderr: true })).stdout.trimEnd();
  }

  private async interfaceData(): Promise<Record<string, InterfaceData>> {
    if (!(await this.shell.which('ip'))) return {};
    const link = await this.cmdRun(['ip', 'link', 'show']);
    const addr = await this.cmdRun(['ip', 'addr', 'show']);
    return parseIpAddr(`${link}\n${addr}`);
  }

  /** Salt's _get_iface_info: the data, or the error text Salt returns as the answer. */
  private async ifaceInfo(iface: string): Promise<{ data: InterfaceData } | { error: string }> {
    const all = await this.interfaceData();
    if (Object.hasOwn(all, iface)) return { data: all[iface] };
    return { error: `Interface "${iface}" not in available interfaces: "${Object.keys(all).join('", "')}"` };
  }

  /** Salt's _ip_addrs: unique addresses of a family, sorted, loopback left out unless asked. */
  private async addrs(proto: 'inet' | 'inet6', interfaceSel: unknown, includeLoopback: boolean): Promise<IpAddress[]> {
    let ifaces = await this.interfaceData();
    if (interfaceSel !== undefined && interfaceSel !== null) {
      const pats = splitInput(interfaceSel);
      ifaces = Object.fromEntries(Object.entries(ifaces).filter(([k]) => pats.some((p) => fnmatch(p, k))));
    }
    const seen = new Map<string, IpAddress>();
    for (const data of Object.values(ifaces)) {
      const list = [...(data[proto] ?? []), ...(data.secondary ?? []).filter((a) => a.type === proto)];
      for (const a of list) {
        const ip = parseIp(a.address);
        if (ip && (!isLoopback(ip) || includeLoopback)) seen.set(formatIp(ip), ip);
      }
    }
    return [...seen.values()].sort(compareIp);
  }

  /** Salt's in_subnet(cidr, [addr]): a strict network; a bad one matches nothing. */
  private static inCidr(cidr: string, ip: IpAddress): boolean {
    const net = parseNetwork(cidr, true);
    return net !== null && inNetwork(ip, net);
  }

  @Fn({
    summary: 'Performs an ICMP ping to a host (4 packets)',
    description: 'timeout: seconds to wait for each reply (ping -W); return_boolean=True answers True/False instead of the output.',
    examples: ["salt '*' network.ping archlinux.org", "salt '*' network.ping archlinux.org return_boolean=True timeout=3"],
    args: { host: arg.string({ nonEmpty: true }), timeout: arg.any({ default: false }), return_boolean: arg.boolean({ default: false }) },
  })
  async ping({ host, timeout, return_boolean }: { host: string; timeout: unknown; return_boolean: boolean }): Promise<string | boolean> {
    const target = sanitizeHost(host);
    let cmd: string[];
    if (timeout && timeout !== '0') {
      cmd =
        this.grains.get('kernel') === 'SunOS'
          ? ['ping', '-c', '4', target, String(timeout)]
          : ['ping', '-W', String(timeout), '-c', '4', target];
    } else cmd = ['ping', '-c', '4', target];
    if (!(await this.shell.which('ping'))) throw new CommandExecutionError("Command 'ping' cannot be found");
    if (return_boolean) return (await this.shell.run(cmd, { pythonShell: false })).retcode === 0;
    return this.cmdRun(cmd);
  }

  @Fn({
    summary: 'Return information on open ports and states (netstat -tulpnea, or ss where netstat is missing)',
    examples: ["salt '*' network.netstat"],
  })
  async netstat(): Promise<Connection[]> {
    if (!this.linux) throw new CommandExecutionError('Not yet supported on this platform');
    if (!(await this.shell.which('netstat'))) return parseSs(await this.cmdRun(['ss', '-tulpnea']));
    return parseNetstat(await this.cmdRun(['netstat', '-tulpnea']));
  }

  @Fn({
    summary: 'Return a dict describing all active tcp connections as quickly as possible (/proc/net/tcp and tcp6)',
    examples: ["salt '*' network.active_tcp"],
  })
  async active_tcp(): Promise<Record<string, TcpConnection>> {
    if (!this.linux) return {};
    const texts: string[] = [];
    for (const f of ['/proc/net/tcp', '/proc/net/tcp6']) {
      const t = await this.host.readFile(f);
      if (t !== null) texts.push(t);
    }
    return Object.fromEntries(parseProcTcp(texts).map((c, i) => [String(i), c]));
  }

  @Fn({
    summary: 'Test connectivity to a host using a particular port from the minion',
    description: "proto='tcp' (default) or 'udp'; timeout in seconds (default 5); family='ipv4' or 'ipv6'.",
    examples: ["salt '*' network.connect archlinux.org 80", "salt '*' network.connect archlinux.org 80 timeout=3 family=ipv4"],
    args: { host: arg.string({ default: '' }), port: arg.any({ optional: true }) },
    kwargs: true,
  })
  async connect({
    host,
    port,
    kwargs,
  }: {
    host: string;
    port?: unknown;
    kwargs: Record<string, unknown>;
  }): Promise<{ result: boolean; comment: string }> {
    if (!host) return { result: false, comment: 'Required argument, host, is missing.' };
    if (port === undefined || port === null || port === '' || port === 0)
      return { result: false, comment: 'Required argument, port, is missing.' };
    const proto = kwargs.proto === 'udp' ? 'udp' : 'tcp';
    const timeout = Number(kwargs.timeout ?? 5);
    const family = kwargs.family === 'ipv4' ? 4 : kwargs.family === 'ipv6' ? 6 : 0;
    const address = isIP(host) ? host : sanitizeHost(host);
    let ip: string;
    try {
      ip = (await lookup(address, { family })).address;
    } catch {
      return { result: false, comment: `Unable to resolve host ${host} on ${proto} port ${String(port)}` };
    }
    const ok = proto === 'udp' ? await udpExchange(ip, Number(port), timeout) : await tcpConnect(ip, Number(port), timeout);
    return ok
      ? { result: true, comment: `Successfully connected to ${host} (${ip}) on ${proto} port ${String(port)}` }
      : { result: false, comment: `Unable to connect to ${host} (${ip}) on ${proto} port ${String(port)}` };
  }

  @Fn({
    summary: 'Return a dictionary of information about all the interfaces on the minion (from ip link/addr show)',
    examples: ["salt '*' network.interfaces"],
  })
  interfaces(): Promise<Record<string, InterfaceData>> {
    return this.interfaceData();
  }

  @Fn({
    summary: 'Return the hardware address (a.k.a. MAC address) for a given interface',
    examples: ["salt '*' network.hw_addr eth0"],
    args: { iface: arg.string({ nonEmpty: true }) },
  })
  async hw_addr({ iface }: { iface: string }): Promise<string> {
    const info = await this.ifaceInfo(iface);
    return 'error' in info ? info.error : (info.data.hwaddr ?? '');
  }

  @Fn({
    summary: 'Return the hardware address (a.k.a. MAC address) for a given interface (alias of network.hw_addr)',
    examples: ["salt '*' network.hwaddr eth0"],
    args: { iface: arg.string({ nonEmpty: true }) },
  })
  hwaddr({ iface }: { iface: string }): Promise<string> {
    return this.hw_addr({ iface });
  }

  @Fn({
    summary: 'Return the inet address details for a given interface',
    examples: ["salt '*' network.interface eth0"],
    args: { iface: arg.string({ nonEmpty: true }) },
  })
  async interface({ iface }: { iface: string }): Promise<unknown> {
    const info = await this.ifaceInfo(iface);
    return 'error' in info ? info.error : (info.data.inet ?? '');
  }

  @Fn({
    summary: 'Return the first inet address for a given interface',
    examples: ["salt '*' network.interface_ip eth0"],
    args: { iface: arg.string({ nonEmpty: true }) },
  })
  async interface_ip({ iface }: { iface: string }): Promise<string> {
    const info = await this.ifaceInfo(iface);
    if ('error' in info) return info.error;
    return info.data.inet?.[0]?.address ?? '';
  }

  @Fn({
    summary: 'Returns a list of IPv4 addresses assigned to the host (127.0.0.1 left out unless include_loopback=True)',
    description: "interface: a name or glob (or a list); cidr: only addresses in that network; type='public' or 'private'.",
    examples: ["salt '*' network.ip_addrs", "salt '*' network.ip_addrs cidr=10.0.0.0/8", "salt '*' network.ip_addrs type=private"],
    args: {
      interface: arg.any({ optional: true }),
      include_loopback: arg.boolean({ default: false }),
      cidr: arg.string({ optional: true }),
      type: arg.string({ optional: true }),
    },
  })
  async ip_addrs(a: { interface?: unknown; include_loopback: boolean; cidr?: string; type?: string }): Promise<string[]> {
    let addrs = await this.addrs('inet', a.interface, a.include_loopback);
    if (a.cidr) addrs = addrs.filter((ip) => NetworkModule.inCidr(a.cidr!, ip));
    else if (a.type === 'public') addrs = addrs.filter((ip) => !isPrivate(ip));
    else if (a.type === 'private') addrs = addrs.filter(isPrivate);
    return addrs.map(formatIp);
  }

  @Fn({
    summary: 'Returns a list of IPv4 addresses assigned to the host (alias of network.ip_addrs)',
    examples: ["salt '*' network.ipaddrs"],
    args: {
      interface: arg.any({ optional: true }),
      include_loopback: arg.boolean({ default: false }),
      cidr: arg.string({ optional: true }),
      type: arg.string({ optional: true }),
    },
  })
  ipaddrs(a: { interface?: unknown; include_loopback: boolean; cidr?: string; type?: string }): Promise<string[]> {
    return this.ip_addrs(a);
  }

  @Fn({
    summary: 'Returns a list of IPv6 addresses assigned to the host (::1 left out unless include_loopback=True)',
    examples: ["salt '*' network.ip_addrs6", "salt '*' network.ip_addrs6 cidr=2000::/3"],
    args: {
      interface: arg.any({ optional: true }),
      include_loopback: arg.boolean({ default: false }),
      cidr: arg.string({ optional: true }),
    },
  })
  async ip_addrs6(a: { interface?: unknown; include_loopback: boolean; cidr?: string }): Promise<string[]> {
    let addrs = await this.addrs('inet6', a.interface, a.include_loopback);
    if (a.cidr) addrs = addrs.filter((ip) => NetworkModule.inCidr(a.cidr!, ip));
    return addrs.map(formatIp);
  }

  @Fn({
    summary: 'Returns a list of IPv6 addresses assigned to the host (alias of network.ip_addrs6)',
    examples: ["salt '*' network.ipaddrs6"],
    args: {
      interface: arg.any({ optional: true }),
      include_loopback: arg.boolean({ default: false }),
      cidr: arg.string({ optional: true }),
    },
  })
  ipaddrs6(a: { interface?: unknown; include_loopback: boolean; cidr?: string }): Promise<string[]> {
    return this.ip_addrs6(a);
  }

  /** Salt's _subnets: the networks of the host's addresses of a family, loopback left out, sorted. */
  private async subnetsOf(proto: 'inet' | 'inet6', interfaces?: unknown): Promise<string[]> {
    const all = await this.interfaceData();
    let ifaces: Record<string, InterfaceData>;
    if (interfaces === undefined || interfaces === null) ifaces = all;
    else if (Array.isArray(interfaces)) ifaces = Object.fromEntries(Object.entries(all).filter(([k]) => interfaces.includes(k)));
    else ifaces = { [String(interfaces)]: all[String(interfaces)] ?? {} };
    const nets = new Map<string, { ip: IpAddress; prefix: number }>();
    for (const data of Object.values(ifaces)) {
      for (const a of [...(data[proto] ?? []), ...(data.secondary ?? []).filter((s) => s.type === proto)]) {
        const len = 'netmask' in a ? a.netmask : 'prefixlen' in a ? a.prefixlen : undefined;
        const net = parseNetwork(`${a.address}/${len ?? (proto === 'inet' ? 32 : 128)}`);
        const ip = parseIp(a.address);
        if (!net || !ip || isLoopback(ip)) continue;
        nets.set(formatNetwork(net), { ip: { version: net.version, value: net.network }, prefix: net.prefix });
      }
    }
    return [...nets.entries()].sort(([, x], [, y]) => compareIp(x.ip, y.ip) || x.prefix - y.prefix).map(([text]) => text);
  }

  @Fn({
    summary: 'Returns a list of IPv4 subnets to which the host belongs',
    examples: ["salt '*' network.subnets", "salt '*' network.subnets interfaces=eth1"],
    args: { interfaces: arg.any({ optional: true }) },
  })
  subnets({ interfaces }: { interfaces?: unknown }): Promise<string[]> {
    return this.subnetsOf('inet', interfaces);
  }

  @Fn({ summary: 'Returns a list of IPv6 subnets to which the host belongs', examples: ["salt '*' network.subnets6"] })
  subnets6(): Promise<string[]> {
    return this.subnetsOf('inet6');
  }

  @Fn({
    summary: 'Returns True if host is within specified subnet, otherwise False',
    examples: ["salt '*' network.in_subnet 10.0.0.0/16"],
    args: { cidr: arg.string({ nonEmpty: true }) },
  })
  async in_subnet({ cidr }: { cidr: string }): Promise<boolean> {
    const net = parseNetwork(cidr, true);
    if (!net) return false;
    const addrs = [...(await this.addrs('inet', undefined, false)), ...(await this.addrs('inet6', undefined, false))];
    return addrs.some((ip) => inNetwork(ip, net));
  }

  @Fn({
    summary: 'Returns True if given IP is within specified subnet, otherwise False',
    examples: ["salt '*' network.ip_in_subnet 172.17.0.4 172.16.0.0/12"],
    args: { ip_addr: arg.string({ nonEmpty: true }), cidr: arg.string({ nonEmpty: true }) },
  })
  ip_in_subnet({ ip_addr, cidr }: { ip_addr: string; cidr: string }): boolean {
    return NetworkModule.inCidr(cidr, ipOf(ip_addr));
  }

  @Fn({
    summary: 'Check if the given IP address is a private address',
    examples: ["salt '*' network.is_private 10.0.0.3"],
    args: { ip_addr: arg.string({ nonEmpty: true }) },
  })
  is_private({ ip_addr }: { ip_addr: string }): boolean {
    return isPrivate(ipOf(ip_addr));
  }

  @Fn({
    summary: 'Check if the given IP address is a loopback address',
    examples: ["salt '*' network.is_loopback 127.0.0.1"],
    args: { ip_addr: arg.string({ nonEmpty: true }) },
  })
  is_loopback({ ip_addr }: { ip_addr: string }): boolean {
    return isLoopback(ipOf(ip_addr));
  }

  @Fn({
    summary: 'Performs a traceroute to a 3rd party host: one {count, hostname, ip, ms1, ms2, ms3} per hop',
    examples: ["salt '*' network.traceroute archlinux.org"],
    args: { host: arg.string() },
  })
  async traceroute({ host }: { host: string }): Promise<Array<Record<string, unknown>>> {
    if (!(await this.shell.which('traceroute'))) throw new CommandExecutionError("The 'traceroute' binary was not found in $PATH.");
    const out = await this.cmdRun(['traceroute', sanitizeHost(host)]);
    const kernel = String(this.grains.get('kernel') ?? '');
    const version = ['SunOS', 'AIX'].includes(kernel) ? [0, 0, 0] : tracerouteVersion(await this.cmdRun(['traceroute', '--version']));
    return parseTraceroute(out, version, kernel);
  }

  @Fn({
    summary: 'Performs a DNS lookup with dig; its output',
    examples: ["salt '*' network.dig archlinux.org"],
    args: { host: arg.string() },
  })
  async dig({ host }: { host: string }): Promise<string> {
    if (!(await this.shell.which('dig'))) throw new CommandExecutionError("The 'dig' binary was not found in $PATH.");
    return this.cmdRun(['dig', sanitizeHost(host)]);
  }

  @Fn({
    summary: 'Return routing information for a given destination: {destination, gateway, interface, source}',
    examples: ["salt '*' network.get_route 10.10.10.10"],
    args: { ip: arg.string() },
  })
  async get_route({ ip }: { ip: string }): Promise<Record<string, unknown>> {
    if (this.grains.get('kernel') !== 'Linux')
      throw new CommandExecutionError('network.get_route is implemented by brine for Linux (ip route get) only');
    if (isIP(ip) === 0) throw new CommandExecutionError(`'${ip}' is not an IP address`);
    const res = await this.shell.run(['ip', 'route', 'get', ip], { mergeStderr: true });
    const first = res.stdout.split('\n')[0] ?? '';
    const m = /(via\s+(?<gateway>[\w.:]+))?\s+dev\s+(?<interface>[\w.:-]+)\s+.*src\s+(?<source>[\w.:]+)/.exec(first);
    // Salt fails on m.group() of no match; brine says what ip answered.
    if (!m?.groups) throw new CommandExecutionError(`ip route get ${ip} gave no route: ${res.stdout.trim()}`);
    return { destination: ip, gateway: m.groups.gateway ?? null, interface: m.groups.interface, source: m.groups.source };
  }

  @Fn({ summary: 'Return the arp table from the minion: {mac: ip} (arp -an)', examples: ["salt '*' network.arp"] })
  async arp(): Promise<Record<string, string>> {
    if (!(await this.shell.which('arp'))) throw new CommandExecutionError("The 'arp' binary was not found in $PATH.");
    const ret: Record<string, string> = {};
    const kernel = this.grains.get('kernel');
    for (const line of (await this.cmdRun(['arp', '-an'])).split('\n')) {
      const c = line.trim().split(/\s+/);
      if (c.length < 4) continue;
      if (kernel === 'OpenBSD') {
        if (c[0] !== 'Host' && c[1] !== '(incomplete)') ret[c[1]] = c[0];
      } else if (kernel === 'AIX') {
        if (c[0] !== 'bucket' && c[0] !== 'There') ret[c[3]] = c[1].replace(/^\(+|\)+$/g, '');
      } else ret[c[3]] = c[1].replace(/^\(+|\)+$/g, '');
    }
    return ret;
  }

  @Fn({ summary: 'Get hostname', examples: ["salt '*' network.get_hostname"] })
  get_hostname(): string {
    return this.host.hostname();
  }

  @Fn({
    summary: 'Return currently configured routes from routing table',
    examples: ["salt '*' network.routes", "salt '*' network.routes inet6"],
    args: FAMILY,
  })
  async routes({ family }: { family?: string }): Promise<Route[]> {
    if (family !== undefined && family !== 'inet' && family !== 'inet6')
      throw new CommandExecutionError(`Invalid address family ${family}`);
    if (!this.linux) throw new CommandExecutionError('Not yet supported on this platform');
    let routes: Route[];
    if (await this.shell.which('netstat')) {
      routes = parseNetstatRoutes(
        await this.cmdRun('netstat -A inet -rn | tail -n+3', true),
        await this.cmdRun('netstat -A inet6 -rn | tail -n+3', true),
      );
    } else {
      routes = parseIpRoutes(await this.cmdRun('ip -4 route show table main', true), await this.cmdRun('ip -6 route show table all', true));
    }
    return family ? routes.filter((r) => r.addr_family === family) : routes;
  }

  @Fn({
    summary: 'Return default route(s) from routing table',
    examples: ["salt '*' network.default_route", "salt '*' network.default_route inet"],
    args: FAMILY,
  })
  async default_route({ family }: { family?: string }): Promise<Route[]> {
    if (family !== undefined && family !== 'inet' && family !== 'inet6')
      throw new CommandExecutionError(`Invalid address family ${family}`);
    const routes = await this.routes({ family });
    const defaults = { inet: ['0.0.0.0', 'default'], inet6: ['::/0', 'default'] };
    return routes.filter((r) =>
      family ? defaults[family as 'inet' | 'inet6'].includes(r.destination) : [...defaults.inet, ...defaults.inet6].includes(r.destination),
    );
  }
}

/** A TCP connection that opens within the timeout. */
function tcpConnect(ip: string, port: number, timeout: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = new Socket();
    const done = (ok: boolean): void => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeout * 1000, () => done(false));
    socket.once('error', () => done(false));
    socket.connect(port, ip, () => done(true));
  });
}

/** A UDP datagram answered within the timeout (Salt counts only an answer as connected). */
function udpExchange(ip: string, port: number, timeout: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createSocket(isIP(ip) === 6 ? 'udp6' : 'udp4');
    const timer = setTimeout(() => done(false), timeout * 1000);
    function done(ok: boolean): void {
      clearTimeout(timer);
      socket.close();
      resolve(ok);
    }
    socket.once('error', () => done(false));
    socket.once('message', () => done(true));
    socket.send(String(Date.now()), port, ip);
  });
}
