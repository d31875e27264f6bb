import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { createServer, connect as tcpConnect, type Server, type Socket } from 'node:net';
import { once } from 'node:events';
import { createHarness, fakeShell, type Harness } from 'brine/testing';
import { NodeHost } from '../../../src/plugins/services/host';
import { NodeShell } from '../../../src/plugins/services/shell';
import { fixture } from '../fixtures';

/**
 * Outputs of ip, netstat and ss captured on a Linux host (plus a VLAN interface with a secondary
 * address), and salt-expected.json: what Salt 3007.10's own parsers answer for the same text.
 */
const OUT = (name: string): string => readFileSync(fixture('command-output', name), 'utf8');
const SALT = JSON.parse(OUT('salt-expected.json')) as Record<string, unknown>;
const COMMANDS: Record<string, string> = {
  'ip link show': OUT('ip-link.txt'),
  'ip addr show': OUT('ip-addr.txt'),
  'netstat -tulpnea': OUT('netstat-tulpnea.txt'),
  'ss -tulpnea': OUT('ss-tulpnea.txt'),
  'netstat -A inet -rn | tail -n+3': OUT('netstat-route4.txt'),
  'netstat -A inet6 -rn | tail -n+3': OUT('netstat-route6.txt'),
  'ip -4 route show table main': OUT('ip-route4.txt'),
  'ip -6 route show table all': OUT('ip-route6.txt'),
  'ping -W 2 -c 4 example.org': 'PING example.org 4 packets\n',
  'traceroute example.org':
    'traceroute to example.org (93.184.216.34), 30 hops max, 60 byte packets\n' +
    ' 1  gateway (192.0.2.1)  0.345 ms  0.301 ms  0.298 ms\n' +
    ' 2  * * *\n' +
    ' 3  edge.example.net (198.51.100.7)  10.123 ms  9.876 ms  10.001 ms\n',
  'traceroute --version': 'Modern traceroute for Linux, version 2.1.2, Oct 24 2022\n',
  'dig example.org': '; <<>> DiG 9.18 <<>> example.org\n;; ANSWER SECTION:\nexample.org.\t300\tIN\tA\t93.184.216.34\n',
  'ip route get 8.8.8.8': '8.8.8.8 via 192.0.2.1 dev eth0 src 192.0.2.2 uid 0 \n    cache \n',
  'ip route get 127.0.0.1': 'local 127.0.0.1 dev lo src 127.0.0.1 uid 0 \n    cache <local> \n',
  'arp -an': '? (192.0.2.1) at 02:fc:00:00:00:05 [ether] on eth0\n? (192.0.2.9) at <incomplete> on eth0\n',
};

function shellWith(programs: string[]) {
  return fakeShell(
    (cmd) => {
      const key = Array.isArray(cmd) ? cmd.join(' ') : cmd;
      return key in COMMANDS ? { stdout: COMMANDS[key] } : { retcode: 2, stderr: `unexpected command ${key}` };
    },
    Object.fromEntries(programs.map((p) => [p, `/usr/bin/${p}`])),
  );
}

describe('network module', () => {
  let h: Harness;
  let viaSs: Harness;
  beforeAll(async () => {
    const host = new NodeHost(fixture('roots', 'status-linux'));
    h = await createHarness({ host, shell: shellWith(['ip', 'netstat', 'ping', 'arp', 'traceroute', 'dig']), grains: { kernel: 'Linux' } });
    viaSs = await createHarness({ host, shell: shellWith(['ip']), grains: { kernel: 'Linux' } });
  });

  it('traceroute, dig and get_route parse and answer as Salt does', async () => {
    expect((await h.call('network.traceroute', ['example.org'])).return).toEqual([
      { count: 1, hostname: 'gateway', ip: '192.0.2.1', ms1: 0.345, ms2: 0.301, ms3: 0.298 },
      { count: 2, hostname: '*' },
      { count: 3, hostname: 'edge.example.net', ip: '198.51.100.7', ms1: 10.123, ms2: 9.876, ms3: 10.001 },
    ]);
    expect((await h.call('network.dig', ['example.org'])).return).toContain('93.184.216.34');
    expect((await h.call('network.get_route', ['8.8.8.8'])).return).toEqual({
      destination: '8.8.8.8',
      gateway: '192.0.2.1',
      interface: 'eth0',
      source: '192.0.2.2',
    });
    expect((await h.call('network.get_route', ['127.0.0.1'])).return).toEqual({
      destination: '127.0.0.1',
      gateway: null,
      interface: 'lo',
      source: '127.0.0.1',
    });
    // Without the binaries: Salt's which() text.
    expect((await viaSs.call('network.traceroute', ['example.org'])).return).toBe("ERROR: The 'traceroute' binary was not found in $PATH.");
    expect((await viaSs.call('network.dig', ['example.org'])).return).toBe("ERROR: The 'dig' binary was not found in $PATH.");
  });

  it("interfaces, ip_addrs (loopback, interface glob, public/private, cidr), ip_addrs6, subnets equal Salt's", async () => {
    expect((await h.call('network.interfaces')).return).toEqual(SALT.interfaces);
    expect((await h.call('network.ip_addrs')).return).toEqual(SALT.ip_addrs);
    expect((await h.call('network.ipaddrs', [], { include_loopback: true })).return).toEqual(SALT.ip_addrs_lo);
    expect((await h.call('network.ip_addrs', ['eth*'])).return).toEqual(SALT.ip_addrs_eth);
    expect((await h.call('network.ip_addrs', [], { type: 'private' })).return).toEqual(SALT.ip_addrs_private);
    expect((await h.call('network.ip_addrs', [], { type: 'public' })).return).toEqual(SALT.ip_addrs_public);
    expect((await h.call('network.ip_addrs', [], { cidr: '10.10.0.0/16' })).return).toEqual(['10.10.0.5', '10.10.0.6']);
    // Salt's ip_network is strict: host bits set make the cidr match nothing.
    expect((await h.call('network.ip_addrs', [], { cidr: '10.10.0.5/16' })).return).toEqual([]);
    expect((await h.call('network.ip_addrs6')).return).toEqual(SALT.ip_addrs6);
    expect((await h.call('network.ip_addrs6', [], { include_loopback: true })).return).toEqual(SALT.ip_addrs6_lo);
    expect((await h.call('network.subnets')).return).toEqual(SALT.subnets);
    expect((await h.call('network.subnets6')).return).toEqual(SALT.subnets6);
    expect((await h.call('network.in_subnet', ['198.51.100.0/24'])).return).toBe(true);
    expect((await h.call('network.in_subnet', ['203.0.113.0/24'])).return).toBe(false);
  });

  it("hw_addr, interface, interface_ip; an unknown interface answers with Salt's text", async () => {
    expect((await h.call('network.hw_addr', ['eth0'])).return).toBe('02:fc:00:00:00:01');
    expect((await h.call('network.hwaddr', ['lo'])).return).toBe('00:00:00:00:00:00');
    expect((await h.call('network.interface_ip', ['eth0.10'])).return).toBe('10.10.0.5');
    expect((await h.call('network.interface', ['lo'])).return).toEqual([
      { address: '127.0.0.1', netmask: '255.0.0.0', broadcast: null, label: 'lo' },
    ]);
    expect((await h.call('network.hw_addr', ['wlan9'])).return).toBe(
      'Interface "wlan9" not in available interfaces: "lo", "ifb0", "ifb1", "eth0", "eth0.10"',
    );
  });

  it("netstat (netstat, or ss without it), routes (netstat, or ip route), default_route equal Salt's", async () => {
    expect((await h.call('network.netstat')).return).toEqual(SALT.netstat);
    expect((await viaSs.call('network.netstat')).return).toEqual(SALT.ss);
    const viaNetstat = SALT.routes_netstat as { addr_family: string; destination: string }[];
    expect((await h.call('network.routes')).return).toEqual(viaNetstat);
    expect((await h.call('network.routes', ['inet6'])).return).toEqual(viaNetstat.filter((r) => r.addr_family === 'inet6'));
    expect((await viaSs.call('network.routes')).return).toEqual(SALT.routes_ip);
    expect((await h.call('network.default_route')).return).toEqual(viaNetstat.filter((r) => ['0.0.0.0', '::/0'].includes(r.destination)));
    expect((await h.call('network.default_route', ['inet'])).return).toEqual([
      { addr_family: 'inet', destination: '0.0.0.0', gateway: '192.0.2.1', netmask: '0.0.0.0', flags: 'UG', interface: 'eth0' },
    ]);
    expect(await h.call('network.routes', ['ipx'])).toMatchObject({ return: 'ERROR: Invalid address family ipx', retcode: 1 });
  });

  it("active_tcp from /proc/net/tcp and tcp6 equals Salt's; ping runs Salt's command; is_private/is_loopback", async () => {
    expect((await h.call('network.active_tcp')).return).toEqual(SALT.active_tcp);
    expect((await h.call('network.ping', ['example.org;&|* '], { timeout: 2 })).return).toBe('PING example.org 4 packets');
    expect((await h.call('network.arp')).return).toEqual({ '02:fc:00:00:00:05': '192.0.2.1', '<incomplete>': '192.0.2.9' });
    expect(await viaSs.call('network.arp')).toMatchObject({ return: "ERROR: The 'arp' binary was not found in $PATH.", retcode: 1 });
    expect((await h.call('network.is_private', ['172.20.1.1'])).return).toBe(true);
    expect((await h.call('network.is_private', ['8.8.8.8'])).return).toBe(false);
    expect((await h.call('network.is_loopback', ['::1'])).return).toBe(true);
    expect((await h.call('network.ip_in_subnet', ['172.17.0.4', '172.16.0.0/12'])).return).toBe(true);
    const docs = (await h.call('sys.doc', ['network.'])).return as Record<string, string>;
    for (const fn of [
      'ip_addrs',
      'ip_addrs6',
      'interfaces',
      'hw_addr',
      'default_route',
      'routes',
      'ping',
      'connect',
      'netstat',
      'active_tcp',
    ])
      expect(docs[`network.${fn}`]).toMatch(/CLI Example/);
  });
});

describe('network module on this machine', () => {
  let server: Server;
  let port: number;
  let client: Socket;
  let h: Harness;
  beforeAll(async () => {
    server = createServer(() => undefined).listen(0, '127.0.0.1');
    await once(server, 'listening');
    port = (server.address() as { port: number }).port;
    client = tcpConnect(port, '127.0.0.1');
    await once(client, 'connect');
    h = await createHarness({ shell: new NodeShell(), grains: { kernel: 'Linux' } });
  });
  afterAll(async () => {
    client.destroy();
    server.close();
    await once(server, 'close');
  });

  it("connect reaches a listening port and says so; a closed port and an unknown host fail with Salt's comments", async () => {
    expect((await h.call('network.connect', ['127.0.0.1', port])).return).toEqual({
      result: true,
      comment: `Successfully connected to 127.0.0.1 (127.0.0.1) on tcp port ${port}`,
    });
    const closed = createServer().listen(0, '127.0.0.1');
    await once(closed, 'listening');
    const closedPort = (closed.address() as { port: number }).port;
    closed.close();
    await once(closed, 'close');
    expect((await h.call('network.connect', ['127.0.0.1', closedPort], { timeout: 2 })).return).toEqual({
      result: false,
      comment: `Unable to connect to 127.0.0.1 (127.0.0.1) on tcp port ${closedPort}`,
    });
    expect((await h.call('network.connect', ['no-such-host.invalid', 80])).return).toEqual({
      result: false,
      comment: 'Unable to resolve host no-such-host.invalid on tcp port 80',
    });
    expect((await h.call('network.connect', ['127.0.0.1'])).return).toEqual({
      result: false,
      comment: 'Required argument, port, is missing.',
    });
  });

  it('active_tcp lists an established connection; interfaces and ip_addrs answer from the real ip', async () => {
    const conns = Object.values((await h.call('network.active_tcp')).return as Record<string, { remote_port: number; local_port: number }>);
    expect(conns.some((c) => c.remote_port === port) && conns.some((c) => c.local_port === port)).toBe(true);
    const ifaces = (await h.call('network.interfaces')).return as Record<string, { inet?: { address: string }[] }>;
    expect(ifaces.lo?.inet?.[0]?.address).toBe('127.0.0.1');
    expect((await h.call('network.ip_addrs', ['lo'], { include_loopback: true })).return).toEqual(['127.0.0.1']);
  });
});
