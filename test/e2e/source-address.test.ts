/**
 * Salt's source_address: a minion's connections to the master's request and publish ports come
 * from the local address it names (here other loopback addresses: all of 127.0.0.0/8 is local),
 * over brine's own ZMTP connections and over libzmq's (zmq_ports: libzmq). The master's side of
 * each connection is read from /proc/net/tcp.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Cluster } from '../support/cluster';
import { peersOfPort } from '../../src/core/master/presence';
import { sourceAddress } from '../../src/core/minion/channel-client';

describe('source_address', () => {
  let cluster: Cluster;
  beforeAll(async () => {
    cluster = await Cluster.create();
    await cluster.startMaster();
    await cluster.startAccepted([
      { id: 'from2', config: { source_address: '127.0.0.2' } },
      { id: 'from3', config: { source_address: '127.0.0.3', zmq_ports: 'libzmq' } },
    ]);
  }, 60_000);
  afterAll(() => cluster?.stop());

  it("connects to both of the master's ports from the address it names, on either transport", async () => {
    const ping = await cluster.salt('*', 'test.ping', '--out', 'json', '--static');
    expect(JSON.parse(ping.stdout)).toEqual({ from2: true, from3: true });
    for (const port of [cluster.publishPort, cluster.retPort]) {
      expect([...peersOfPort(port)]).toEqual(expect.arrayContaining(['127.0.0.2', '127.0.0.3']));
    }
  });
});

describe('source_interface_name', () => {
  const interfaces = {
    eth1: [
      { address: '10.0.0.5', family: 'IPv4', netmask: '255.0.0.0', mac: '00:00:00:00:00:01', internal: false, cidr: '10.0.0.5/8' },
      { address: 'fd00::5', family: 'IPv6', netmask: 'ffff::', mac: '00:00:00:00:00:01', internal: false, cidr: 'fd00::5/16', scopeid: 0 },
    ],
  } as const;
  const log = (lines: string[]) => ({ warning: (m: string) => void lines.push(m) });

  it("takes the interface's address of the family ipv6 asks for, before source_address", () => {
    const lines: string[] = [];
    expect(sourceAddress({ source_interface_name: 'eth1', source_address: '10.9.9.9' }, log(lines), interfaces as never)).toBe('10.0.0.5');
    expect(sourceAddress({ source_interface_name: 'eth1', ipv6: true }, log(lines), interfaces as never)).toBe('fd00::5');
    expect(sourceAddress({ source_address: '10.9.9.9' }, log(lines), interfaces as never)).toBe('10.9.9.9');
    expect(sourceAddress({}, log(lines), interfaces as never)).toBeUndefined();
    expect(lines).toEqual([]);
  });

  it('warns, as Salt does, of an interface that is not there, and connects from any address', () => {
    const lines: string[] = [];
    expect(sourceAddress({ source_interface_name: 'wlan9' }, log(lines), interfaces as never)).toBeUndefined();
    expect(lines).toEqual(['The interface specified on the minion does not exist: wlan9 (source_interface_name; there are eth1)']);
  });
});
