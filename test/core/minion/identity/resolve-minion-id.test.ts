import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../../src/core/errors';
import { resolveMinionId, type IdentityConfig } from '../../../../src/core/minion/identity';
import { fakeSources, recordingLog, type FakeHost } from './fake-sources';

const DIR = '/etc/salt';
const CACHE = '/etc/salt/minion_id';

async function run(host: FakeHost, config: IdentityConfig = {}, writeCache?: boolean) {
  const sources = fakeSources(host);
  const log = recordingLog();
  const result = await resolveMinionId(config, DIR, sources, log, writeCache === undefined ? {} : { writeCache });
  return { result, sources, log };
}

describe('id from the config', () => {
  it('wins over the cache and looks nothing up', async () => {
    const { result, sources } = await run({ hostname: 'web1', cache: { [CACHE]: 'cached' } }, { id: 'configured' });
    expect(result).toMatchObject({ id: 'configured', rule: 'config', warnings: [] });
    expect(result.detail).toContain('/etc/salt/minion');
    expect(sources.calls).toEqual([]);
    expect(sources.cache.get(CACHE)).toBe('cached');
  });

  it('treats an empty id as unset, as Salt does', async () => {
    const { result } = await run({ hostname: 'web1' }, { id: '' });
    expect(result).toMatchObject({ id: 'web1', rule: 'getfqdn' });
  });

  it('gets append_domain, and is never lowercased or cut', async () => {
    const { result } = await run(
      {},
      { id: 'Web1.Lan', minion_id_lowercase: true, minion_id_remove_domain: true, append_domain: 'example.com' },
    );
    expect(result.id).toBe('Web1.Lan.example.com');
  });
});

describe('the minion_id cache', () => {
  it("is used when present, with Salt's debug line", async () => {
    const { result, log, sources } = await run({ hostname: 'web1', cache: { [CACHE]: 'web1\nsecond line\n' } });
    expect(result).toMatchObject({ id: 'web1', rule: 'cache', warnings: [] });
    expect(log.at('debug')).toContain('Using cached minion ID from /etc/salt/minion_id: web1');
    expect(sources.cache.get(CACHE)).toBe('web1\nsecond line\n');
  });

  it('drops a byte-order mark and surrounding whitespace, CRLF endings included', async () => {
    const { result } = await run({ hostname: 'web1', cache: { [CACHE]: '\ufeff  web1 \r\nx' } });
    expect(result).toMatchObject({ id: 'web1', rule: 'cache' });
  });

  it('is ignored when empty or "localhost", and then overwritten by the guess', async () => {
    for (const text of ['', '\n', '   \nweb9\n', 'localhost\n']) {
      const { result, sources } = await run({ hostname: 'web2', cache: { [CACHE]: text } });
      expect(result).toMatchObject({ id: 'web2', rule: 'getfqdn' });
      expect(sources.cache.get(CACHE)).toBe('web2');
    }
  });

  it('is neither read nor written when minion_id_caching is off', async () => {
    const { result, sources } = await run({ hostname: 'web3', cache: { [CACHE]: 'old' } }, { minion_id_caching: false });
    expect(result).toMatchObject({ id: 'web3', rule: 'getfqdn' });
    expect(sources.cache.get(CACHE)).toBe('old');
  });

  it('receives the guess after lowercase and remove_domain but before append_domain', async () => {
    const { result, sources } = await run(
      { hostname: 'Web4', fqdn: { Web4: 'Web4.Corp.Lan' } },
      { minion_id_lowercase: true, minion_id_remove_domain: 'corp.lan', append_domain: 'example.com' },
    );
    expect(result.id).toBe('web4.example.com');
    expect(sources.cache.get(CACHE)).toBe('web4');
  });

  it('is not written when the caller asks not to (salt-call)', async () => {
    const { sources } = await run({ hostname: 'web5' }, {}, false);
    expect(sources.cache.has(CACHE)).toBe(false);
  });

  it('read failures other than "missing" are a warning, and the id is guessed', async () => {
    const { result, log } = await run({ hostname: 'web6', cacheReadErrors: { [CACHE]: 'EACCES' } });
    expect(result).toMatchObject({ id: 'web6', rule: 'getfqdn' });
    expect(result.warnings.some((w) => w.includes('EACCES') && w.includes(CACHE))).toBe(true);
    expect(log.at('warning')).toEqual(result.warnings);
  });
});

describe('the field case: /etc/hosts maps the host name to 127.0.0.1', () => {
  const hosts = '127.0.0.1   localhost.localdomain localhost\n::1 localhost6.localdomain6 localhost6\n127.0.0.1   web7\n';
  const host: FakeHost = {
    hostname: 'web7',
    fqdn: { web7: 'localhost.localdomain' },
    files: { '/etc/hosts': hosts },
    ips: ['10.0.0.7'],
  };

  it("a fresh guess skips getfqdn()'s loopback answer and takes the node name, as Salt does", async () => {
    const { result, sources, log } = await run(host);
    expect(result).toMatchObject({ id: 'web7', rule: 'nodename', warnings: [] });
    expect(result.detail).toContain('"localhost.localdomain" from getfqdn()');
    expect(sources.cache.get(CACHE)).toBe('web7');
    expect(log.at('debug')).toEqual([
      'Guessing ID. The id can be explicitly set in /etc/salt/minion',
      'Found minion id from nodename(): web7',
      'Found minion id from generate_minion_id(): web7',
      'Cached minion ID in /etc/salt/minion_id: web7',
    ]);
  });

  it('a cached "localhost.localdomain" is still used (Salt ignores only empty and "localhost") and warned about with the fix', async () => {
    const { result, log } = await run({ ...host, cache: { [CACHE]: 'localhost.localdomain\n' } });
    expect(result).toMatchObject({ id: 'localhost.localdomain', rule: 'cache' });
    // One warning: the stale-cache news is folded into it, since the cached id is itself the problem.
    expect(result.warnings).toHaveLength(1);
    const [shared] = result.warnings;
    expect(shared).toContain('loopback name');
    expect(shared).toContain('a fresh guess now gives "web7"');
    expect(shared).toContain('"id: web7" in /etc/salt/minion');
    expect(shared).toContain('the line "127.0.0.1   web7"');
    expect(shared).toContain('delete /etc/salt/minion_id');
    expect(shared).toContain('restart salt-minion');
    expect(log.at('warning')).toEqual(result.warnings);
  });
});

describe('the candidate order', () => {
  it("getfqdn() first, with Salt's debug lines", async () => {
    const { result, log } = await run({ hostname: 'web1', fqdn: { web1: 'web1.example.com' } });
    expect(result).toMatchObject({ id: 'web1.example.com', rule: 'getfqdn' });
    expect(result.detail).toBe('getfqdn() of the host name "web1" answered "web1.example.com"');
    expect(log.at('debug')).toContain('Found minion id from getfqdn(): web1.example.com');
    expect(log.at('debug')).toContain('Found minion id from generate_minion_id(): web1.example.com');
  });

  it('gethostname() when getfqdn and the node name are loopback-like', async () => {
    const { result } = await run({ hostname: 'box', nodename: 'localhost', fqdn: { box: 'localhost' } });
    expect(result).toMatchObject({ id: 'box', rule: 'gethostname' });
  });

  it('/etc/hostname, then /etc/nodename, when no name call is usable', async () => {
    const base: FakeHost = { hostname: 'localhost', files: { '/etc/nodename': 'node3\n' } };
    expect((await run(base)).result).toMatchObject({ id: 'node3', rule: '/etc/nodename' });
    const both = { ...base, files: { ...base.files, '/etc/hostname': '# set by the installer\nweb3\n' } };
    expect((await run(both)).result).toMatchObject({ id: 'web3', rule: '/etc/hostname' });
  });

  it('/etc/hosts gives names only from loopback lines or single-token lines', async () => {
    const hosts = [
      '10.0.0.5 web5.lan web5',
      '# 127.0.0.1 commented.out',
      '127.0.0.1 localhost',
      '127.0.1.1 web5.lan web5 # Debian style',
    ].join('\n');
    const { result } = await run({ hostname: 'localhost', files: { '/etc/hosts': hosts } });
    expect(result).toMatchObject({ id: 'web5.lan', rule: '/etc/hosts' });
    expect(result.detail).toContain('"127.0.1.1 web5.lan web5 # Debian style"');

    const six = await run({ hostname: 'localhost', files: { '/etc/hosts': '::1 ip6-localhost ip6-loopback six\n' } });
    expect(six.result).toMatchObject({ id: 'six', rule: '/etc/hosts' });

    const single = await run({ hostname: 'localhost', files: { '/etc/hosts': '192.168.5.5 other\nsolo\n' } });
    expect(single.result).toMatchObject({ id: 'solo', rule: '/etc/hosts' });
  });

  it('the lowest non-loopback IPv4 address when there is no name; append_domain is not applied to it', async () => {
    const { result, sources } = await run(
      { hostname: 'localhost', ips: ['127.0.0.1', '10.0.0.20', 'garbage', '10.0.0.3', '192.168.1.1', '010.0.0.1'] },
      { append_domain: 'example.com' },
    );
    expect(result).toMatchObject({ id: '10.0.0.3', rule: 'ip' });
    expect(result.detail).toContain('append_domain is not applied');
    expect(sources.cache.get(CACHE)).toBe('10.0.0.3');
  });

  it('"localhost" when everything is loopback-like, with a warning', async () => {
    const { result, sources } = await run({
      hostname: 'localhost.localdomain',
      nodename: 'localhost',
      files: { '/etc/hosts': '127.0.0.1 localhost\n::1 ip6-localhost\n', '/etc/hostname': 'localhost\n' },
      ips: ['127.0.0.1', '127.0.1.1'],
    });
    expect(result).toMatchObject({ id: 'localhost', rule: 'fallback' });
    expect(sources.calls).toContain('canonical:localhost');
    expect(result.warnings).toHaveLength(1);
    expect(result.warnings[0]).toContain('hostnamectl set-hostname');
  });

  it('the canonical name of "localhost" when the three name calls gave nothing usable', async () => {
    const { result } = await run({ hostname: 'localhost', canonical: { localhost: 'web9' } });
    expect(result).toMatchObject({ id: 'web9', rule: 'getaddrinfo' });
  });
});

describe('minion_id_lowercase, minion_id_remove_domain, append_domain', () => {
  it("lowercases with Salt's debug line", async () => {
    const { result, log } = await run({ hostname: 'Web1', fqdn: { Web1: 'Web1.Example.COM' } }, { minion_id_lowercase: true });
    expect(result.id).toBe('web1.example.com');
    expect(log.at('debug')).toContain('Changed minion id web1.example.com to lowercase.');
  });

  it('remove_domain true cuts everything after the first dot', async () => {
    const { result, log } = await run({ hostname: 'web1', fqdn: { web1: 'web1.dc1.example.com' } }, { minion_id_remove_domain: true });
    expect(result.id).toBe('web1');
    expect(log.at('debug')).toContain('Removed any domain (dc1.example.com) from minion id.');
  });

  it('remove_domain as a string cuts only that domain, case-insensitively', async () => {
    const fq = { hostname: 'web1', fqdn: { web1: 'web1.DC1.Example.com' } };
    const { result, log } = await run(fq, { minion_id_remove_domain: 'example.com' });
    expect(result.id).toBe('web1.DC1');
    expect(log.at('debug')).toContain('Removed single domain example.com from minion id.');
    expect((await run(fq, { minion_id_remove_domain: 'other.org' })).result.id).toBe('web1.DC1.Example.com');
    expect((await run(fq, { minion_id_remove_domain: false })).result.id).toBe('web1.DC1.Example.com');
  });

  it('append_domain adds the domain unless it is already a suffix or the id ends with a dot', async () => {
    expect((await run({ hostname: 'web1' }, { append_domain: 'example.com' })).result.id).toBe('web1.example.com');
    expect((await run({ hostname: 'web1.example.com' }, { append_domain: 'example.com' })).result.id).toBe('web1.example.com');
    expect((await run({ hostname: 'web1.' }, { append_domain: 'example.com' })).result.id).toBe('web1.');
  });

  it('append_domain is added to a cached IPv4 id, as Salt does, with a warning', async () => {
    const { result } = await run(
      { hostname: 'localhost', ips: ['10.0.0.3'], cache: { [CACHE]: '10.0.0.3' } },
      { append_domain: 'example.com' },
    );
    expect(result).toMatchObject({ id: '10.0.0.3.example.com', rule: 'cache' });
    expect(result.warnings).toHaveLength(1);
    expect(result.warnings[0]).toContain('append_domain turned the IPv4 id "10.0.0.3"');
  });
});

describe('warnings', () => {
  it('a loopback-like id set in the config names the config fix', async () => {
    const { result } = await run({}, { id: 'localhost.localdomain' });
    expect(result.warnings).toHaveLength(1);
    expect(result.warnings[0]).toContain('set in /etc/salt/minion');
    expect(result.warnings[0]).toContain('"id: <a name unique to this host>"');
  });

  it('an id in 127/8 is loopback-like', async () => {
    const { result } = await run({ cache: { [CACHE]: '127.0.1.1' }, hostname: 'web1' });
    expect(result.id).toBe('127.0.1.1');
    expect(result.warnings[0]).toContain('loopback name');
    expect(result.warnings[0]).toContain('"id: web1"');
  });

  it("an image's default host name is warned about", async () => {
    const { result, log } = await run({ hostname: 'raspberrypi' });
    expect(result).toMatchObject({ id: 'raspberrypi', rule: 'getfqdn' });
    expect(result.warnings).toHaveLength(1);
    expect(result.warnings[0]).toContain('default host name');
    // The guess was just cached, so renaming the host alone would not change the id.
    expect(result.warnings[0]).toContain('(hostnamectl set-hostname <name>), delete /etc/salt/minion_id, then restart salt-minion');
    expect(log.at('warning')).toEqual(result.warnings);
    const uncached = await run({ hostname: 'raspberrypi' }, {}, false);
    expect(uncached.result.warnings[0]).not.toContain('delete /etc/salt/minion_id');
  });

  it('a cache that no longer matches the host name says so and how to fix it', async () => {
    const { result } = await run({ hostname: 'web8', fqdn: { web8: 'web8.example.com' }, cache: { [CACHE]: 'oldname' } });
    expect(result).toMatchObject({ id: 'oldname', rule: 'cache' });
    expect(result.warnings).toHaveLength(1);
    expect(result.warnings[0]).toContain('"oldname"');
    expect(result.warnings[0]).toContain('"web8.example.com"');
    expect(result.warnings[0]).toContain('delete /etc/salt/minion_id');
  });

  it('no stale warning when the fresh guess only reaches the fallback', async () => {
    const { result } = await run({ hostname: 'localhost', cache: { [CACHE]: 'web1' } });
    expect(result).toMatchObject({ id: 'web1', warnings: [] });
  });

  it('a cache that cannot be written is a warning', async () => {
    const { result, sources } = await run({ hostname: 'web1', cacheWriteErrors: { [CACHE]: 'EROFS' } });
    expect(result.id).toBe('web1');
    expect(result.warnings).toHaveLength(1);
    expect(result.warnings[0]).toContain('Could not cache minion ID: EROFS');
    expect(sources.cache.has(CACHE)).toBe(false);
  });
});

describe('bad input', () => {
  const bad: [string, IdentityConfig][] = [
    ['id', { id: 42 as unknown as string }],
    ['minion_id_caching', { minion_id_caching: 'yes' as unknown as boolean }],
    ['minion_id_lowercase', { minion_id_lowercase: 1 as unknown as boolean }],
    ['minion_id_remove_domain', { minion_id_remove_domain: 5 as unknown as string }],
    ['append_domain', { append_domain: ['a'] as unknown as string }],
  ];
  for (const [option, config] of bad) {
    it(`a mistyped ${option} is ConfigError BAD_OPTION naming it`, async () => {
      const err = await resolveMinionId(config, DIR, fakeSources(), recordingLog()).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ConfigError);
      expect((err as ConfigError).code).toBe('BAD_OPTION');
      expect((err as ConfigError).message).toContain(option);
    });
  }

  it('an empty config dir is ConfigError BAD_CONFIG_DIR', async () => {
    const err = await resolveMinionId({}, '', fakeSources(), recordingLog()).catch((e: unknown) => e);
    expect((err as ConfigError).code).toBe('BAD_CONFIG_DIR');
  });

  it('a source that throws is a warning, not a crash', async () => {
    const sources = fakeSources({ nodename: 'web1' });
    sources.gethostname = async () => {
      throw new Error('boom');
    };
    const log = recordingLog();
    const result = await resolveMinionId({}, DIR, sources, log);
    expect(result).toMatchObject({ id: 'web1', rule: 'nodename' });
    expect(log.at('warning').some((w) => w.includes('gethostname()') && w.includes('boom'))).toBe(true);
  });
});
