/**
 * Which minions are connected (Salt's CkMinions.connected_ids: connections to the publish port
 * matched against each accepted minion's ipv4/ipv6 grains), read from /proc/net/tcp and tcp6 as
 * given here, and Salt's presence events fired from it.
 */
import { describe, expect, it } from 'vitest';
import { connectedMinions, peersOfPort, PresenceWatch } from '../../../src/core/master/presence';

const HEADER = '  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n';
/** /proc/net/tcp lines: 0.0.0.0:4505 listening, 10.0.0.2 and 127.0.0.1 connected to it, 10.0.0.3 to port 4506. */
const TCP =
  HEADER +
  '   0: 00000000:1199 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1\n' +
  '   1: 0100000A:1199 0200000A:D431 01 00000000:00000000 00:00000000 00000000     0        0 2\n' +
  '   2: 0100007F:1199 0100007F:D432 01 00000000:00000000 00:00000000 00000000     0        0 3\n' +
  '   3: 0100000A:119A 0300000A:D433 01 00000000:00000000 00:00000000 00000000     0        0 4\n';
/** /proc/net/tcp6: fd00::5 connected to port 4505. */
const TCP6 =
  HEADER +
  '   0: 000000FD000000000000000001000000:1199 000000FD000000000000000005000000:D434 01 00000000:00000000 00:00000000 00000000     0        0 5\n';
const read = (path: string) => (path.endsWith('tcp6') ? TCP6 : TCP);

describe('connected minions', () => {
  it('reads the peers of the publish port from /proc/net/tcp and tcp6', () => {
    expect([...peersOfPort(4505, read)].sort()).toEqual(['10.0.0.2', '127.0.0.1', 'fd00::5']);
  });

  it('names the accepted minions whose ipv4 or ipv6 grain holds such a peer', () => {
    const grains: Record<string, Record<string, unknown>> = {
      web1: { ipv4: ['10.0.0.2', '127.0.0.1'] },
      web2: { ipv4: ['10.0.0.3'] },
      web3: { ipv4: [], ipv6: ['fd00::5'] },
    };
    expect(connectedMinions(4505, ['web1', 'web2', 'web3', 'nograins'], (id) => grains[id], read)).toEqual(['web1', 'web3']);
  });
});

describe('PresenceWatch', () => {
  it("fires Salt's change event when the connected set moves, and present at every check", () => {
    const fired: Array<[string, Record<string, unknown>]> = [];
    let now: string[] = ['web1'];
    const watch = new PresenceWatch(
      () => now,
      (tag, data) => fired.push([tag, data]),
    );
    watch.check();
    watch.check();
    now = ['web2'];
    watch.check();
    expect(fired).toEqual([
      ['salt/presence/change', { new: ['web1'], lost: [] }],
      ['salt/presence/present', { present: ['web1'] }],
      ['salt/presence/present', { present: ['web1'] }],
      ['salt/presence/change', { new: ['web2'], lost: ['web1'] }],
      ['salt/presence/present', { present: ['web2'] }],
    ]);
  });
});
