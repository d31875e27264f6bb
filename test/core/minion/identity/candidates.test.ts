import { describe, expect, it } from 'vitest';
import { collectCandidates, hostFileTokens, loopbackMatcher, sortedHostIPv4 } from '../../../../src/core/minion/identity/candidates';
import { fakeSources, recordingLog } from './fake-sources';

describe("Salt's localhost matchers (re.match: anchored at the start only)", () => {
  const dropped = [
    'localhost',
    'localhost.localdomain',
    'localhost6.localdomain6',
    'localhostfoo',
    'ip6-localhost',
    'ip6-loopback',
    '127.0.0.1',
    '127.0.1.1',
    '127.5',
    '0.0.0.0',
    '::1',
    'ipv6-foo',
    'fe00::0',
    'fe02::1',
    '1.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.ip6.arpa',
  ];
  const kept = ['web1', 'mylocalhost', 'Localhost', '1270.0.0.1', '127x', '10.0.0.1', 'fe80::1', '0.0.0.1', 'ip6'];
  for (const name of dropped) it(`drops ${name}`, () => expect(loopbackMatcher(name)).not.toBeNull());
  for (const name of kept) it(`keeps ${name}`, () => expect(loopbackMatcher(name)).toBeNull());
});

describe('host-file lines', () => {
  it('gives the tokens of loopback lines and single-token lines only', () => {
    expect(hostFileTokens('127.0.1.1\tweb1.lan web1')).toEqual(['127.0.1.1', 'web1.lan', 'web1']);
    expect(hostFileTokens('::1 ip6-localhost six')).toEqual(['::1', 'ip6-localhost', 'six']);
    expect(hostFileTokens('::1/128 six')).toEqual([]);
    expect(hostFileTokens('10.0.0.1 web1')).toEqual([]);
    expect(hostFileTokens('  web1  ')).toEqual(['web1']);
    expect(hostFileTokens('web1 # the name')).toEqual(['web1']);
    expect(hostFileTokens('# 127.0.0.1 x')).toEqual([]);
    expect(hostFileTokens('')).toEqual([]);
  });
});

describe('interface addresses', () => {
  it('are unique, numeric-ordered, loopback and garbage removed', () => {
    expect(sortedHostIPv4(['192.168.1.9', '10.0.0.10', '127.0.0.1', '10.0.0.9', '10.0.0.10', '300.1.1.1', '01.2.3.4', 'x'])).toEqual([
      '10.0.0.9',
      '10.0.0.10',
      '192.168.1.9',
    ]);
  });
});

describe('collectCandidates', () => {
  it("keeps Salt's order and drops duplicates", async () => {
    const report = await collectCandidates(
      fakeSources({
        hostname: 'web1',
        fqdn: { web1: 'web1.example.com' },
        files: { '/etc/hostname': 'web1\n', '/etc/hosts': '127.0.0.1 localhost\n127.0.1.1 web1.example.com web1 alias1\n' },
        ips: ['10.0.0.1'],
      }),
      recordingLog(),
    );
    expect(report.candidates.map((c) => `${c.source}=${c.name}`)).toEqual([
      'getfqdn=web1.example.com',
      'nodename=web1',
      '/etc/hosts=alias1',
      'ip=10.0.0.1',
    ]);
    expect(report.dropped.map((d) => d.name)).toEqual(['127.0.0.1', 'localhost', '127.0.1.1']);
  });

  it('asks getaddrinfo only when the three name calls gave nothing usable', async () => {
    const sources = fakeSources({ hostname: 'web1' });
    await collectCandidates(sources, recordingLog());
    expect(sources.calls.some((c) => c.startsWith('canonical:'))).toBe(false);
  });
});
