/**
 * The one port of Python's `ipaddress`. Expected values printed by python3's `ipaddress`
 * (str(ip_address(a)), is_private, is_loopback; str(ip_network(n, strict=False/True)), None for
 * ValueError). IPv4-mapped addresses are left out of is_private: Python 3.11 changed that answer
 * and Salt 3007 runs on 3.10.
 */
import { describe, expect, it } from 'vitest';
import { formatIp, formatNetwork, isLoopback, isPrivate, parseIp, parseNetwork } from '../../../src/core/pycompat';

const ADDRESSES: Array<[string, string | null, boolean | null, boolean | null]> = [
  ['1.2.3.4', '1.2.3.4', false, false],
  ['01.2.3.4', null, null, null],
  ['256.1.1.1', null, null, null],
  ['::', '::', true, false],
  ['::1', '::1', true, true],
  ['1::', '1::', false, false],
  ['fe80::1:0:0:0:5', 'fe80:0:0:1::5', true, false],
  ['2001:db8:0:0:1:0:0:1', '2001:db8::1:0:0:1', true, false],
  ['2001:0db8::0001', '2001:db8::1', true, false],
  ['::ffff:1.2.3.4', '::ffff:102:304', null, false],
  ['1:2:3:4:5:6:7:8', '1:2:3:4:5:6:7:8', false, false],
  ['1:2:3:4:5:6:7:8:9', null, null, null],
  [':1::2', null, null, null],
  ['1::2::3', null, null, null],
  ['1.2.3', null, null, null],
  ['abc', null, null, null],
  ['0:0:0:0:0:0:0:0', '::', true, false],
  ['1:0:0:2:0:0:0:3', '1:0:0:2::3', false, false],
];

const NETWORKS: Array<[string, string | null, string | null]> = [
  ['10.0.0.0/8', '10.0.0.0/8', '10.0.0.0/8'],
  ['10.1.2.3/8', '10.0.0.0/8', null],
  ['10.0.0.0/255.0.0.0', '10.0.0.0/8', '10.0.0.0/8'],
  ['10.0.0.0/0.255.255.255', '10.0.0.0/8', '10.0.0.0/8'],
  ['10.0.0.0/255.0.255.0', null, null],
  ['10.0.0.0/33', null, null],
  ['2001:db8::/32', '2001:db8::/32', '2001:db8::/32'],
  ['2001:db8::1/32', '2001:db8::/32', null],
  ['::/0', '::/0', '::/0'],
  ['1.2.3.4', '1.2.3.4/32', '1.2.3.4/32'],
];

describe('ipaddress', () => {
  it.each(ADDRESSES)('ip_address(%j)', (text, str, priv, loop) => {
    const ip = parseIp(text);
    if (str === null) return expect(ip).toBeNull();
    expect(ip && formatIp(ip)).toBe(str);
    if (priv !== null) expect(isPrivate(ip!)).toBe(priv);
    expect(isLoopback(ip!)).toBe(loop);
  });

  it.each(NETWORKS)('ip_network(%j)', (text, loose, strict) => {
    const show = (n: ReturnType<typeof parseNetwork>) => (n ? formatNetwork(n) : null);
    expect(show(parseNetwork(text))).toBe(loose);
    expect(show(parseNetwork(text, true))).toBe(strict);
  });
});
