import { describe, expect, it } from 'vitest';
import { ipTargetMatches, parseIpTarget } from '../../../src/core/targeting/ipcidr';

// [input, str(ipaddress.ip_address(input)) or null] from CPython 3.11.
const ADDRESSES: Array<[string, string | null]> = [
  ['10.1.2.3', '10.1.2.3'],
  ['010.1.2.3', null],
  ['1.2.3', null],
  ['256.1.1.1', null],
  ['::1', '::1'],
  ['2001:0DB8::0010', '2001:db8::10'],
  ['1::2::3', null],
  [':1::2', null],
  ['1:2:3:4:5:6:7:8', '1:2:3:4:5:6:7:8'],
  ['1:2:3:4:5:6:7:8:9', null],
  ['::ffff:1.2.3.4', '::ffff:102:304'],
  ['1:2:3:4:5:6:7::', '1:2:3:4:5:6:7:0'],
  ['::1:2:3:4:5:6:7', '0:1:2:3:4:5:6:7'],
  ['1:0:0:2:0:0:0:3', '1:0:0:2::3'],
  ['fe80::1%eth0', 'fe80::1%eth0'],
  ['12345::', null],
];

// [input, whether ipaddress.ip_network(input) accepts it] from CPython 3.11.
const NETWORKS: Array<[string, boolean]> = [
  ['10.0.0.0/8', true],
  ['10.0.0.1/8', false],
  ['10.0.0.0/255.0.0.0', true],
  ['10.0.0.0/0.255.255.255', true],
  ['10.0.0.0/33', false],
  ['2001:db8::/32', true],
  ['2001:db8::1/32', false],
  ['2001:db8::/ 32', false],
  ['0.0.0.0/0', true],
  ['10.0.0.0/08', true],
];

describe('parseIpTarget', () => {
  it.each(ADDRESSES)('address %j prints as %j', (input, canonical) => {
    const parsed = parseIpTarget(input);
    if (canonical === null) {
      expect('kind' in parsed && parsed.kind === 'address').toBe(false);
    } else {
      expect(parsed).toMatchObject({ kind: 'address', text: canonical });
    }
  });

  it.each(NETWORKS)('network %j valid: %s', (input, valid) => {
    expect('error' in parseIpTarget(input)).toBe(!valid);
  });
});

describe('ipTargetMatches', () => {
  const grains = { ipv4: ['127.0.0.1', '192.168.5.20'], ipv6: ['::1', '2001:db8:0:1::20'] };
  const matches = (t: string) => {
    const parsed = parseIpTarget(t);
    if ('error' in parsed) throw new Error(parsed.error);
    return ipTargetMatches(parsed, grains);
  };

  it('checks networks against every address of the same family', () => {
    expect(matches('192.168.0.0/16')).toBe(true);
    expect(matches('192.168.6.0/24')).toBe(false);
    expect(matches('0.0.0.0/0')).toBe(true);
    expect(matches('2001:db8::/48')).toBe(true);
    expect(matches('2001:db8:0:2::/64')).toBe(false);
    expect(matches('::1/128')).toBe(true);
  });

  it('compares a single address in its canonical text form', () => {
    expect(matches('192.168.5.20')).toBe(true);
    expect(matches('2001:DB8:0:1:0:0:0:20')).toBe(true);
    expect(matches('192.168.5.21')).toBe(false);
  });

  it('does not match when the family grain is missing', () => {
    const parsed = parseIpTarget('10.0.0.0/8');
    if ('error' in parsed) throw new Error(parsed.error);
    expect(ipTargetMatches(parsed, { ipv6: ['::1'] })).toBe(false);
  });
});
