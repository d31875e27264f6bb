import { describe, expect, it } from 'vitest';
import { matchTarget, type MinionData, type Target, type TargetType } from '../../../src/core/targeting';

// Expected values follow Salt 3007's matchers (salt/matchers/*.py, salt.utils.data.subdict_match).
const GRAINS: Record<string, unknown> = {
  os: 'Debian',
  osrelease: '12',
  num_cpus: 4,
  is_proxy: false,
  virtual: 'kvm',
  roles: ['web', 'Cache'],
  ipv4: ['127.0.0.1', '10.1.2.3'],
  ipv6: ['::1', '2001:db8::10', 'fe80::1%eth0'],
  locale_info: { defaultlanguage: 'en_US', timezone: 'UTC' },
  'salt:version': '3007',
  deep: { a: { b: 'c:d' } },
  list_of_dicts: [{ name: 'eth0', mtu: 1500 }],
  empty: {},
  nothing: null,
  fqdn: 'web1.example.com',
};
const PILLAR = { role: 'web', tiers: { app: ['frontend', 'api'] } };

const NODEGROUPS = {
  web: 'web*',
  debs: 'G@os:Debian',
  webdeb: 'N@web and N@debs',
  ids: ['web1', 'db1'],
  idstr: 'web1 db1',
  regexy: ['web\\d'],
  either: 'N@ids or N@web',
  anyos: 'G@os:Ubuntu or web*',
  loop1: 'N@loop2 or web1',
  loop2: 'N@loop1',
};

type Row = [
  tgt: string | string[],
  type: TargetType,
  id: string,
  expected: boolean,
  extra?: Partial<Target> & { noGrains?: boolean; pillar?: boolean },
];

const ROWS: Row[] = [
  // glob: Python fnmatch on the id
  ['web*', 'glob', 'web1', true],
  ['web*', 'glob', 'Web1', false],
  ['web?', 'glob', 'web12', false],
  ['web[0-9]', 'glob', 'web5', true],
  ['web[!0-9]', 'glob', 'web5', false],
  ['web[!0-9]', 'glob', 'webx', true],
  ['web.1', 'glob', 'webx1', false],
  ['web+1', 'glob', 'web+1', true],
  ['*', 'glob', 'a/b.c', true],
  ['web[', 'glob', 'web[', true],
  [['web1'], 'glob', 'web1', false],
  // pcre: re.match, anchored at the start only
  ['web\\d+', 'pcre', 'web12', true],
  ['eb', 'pcre', 'web1', false],
  ['web', 'pcre', 'web12', true],
  ['web1$', 'pcre', 'web12', false],
  ['(?P<role>web|db)\\d', 'pcre', 'db3', true],
  ['WEB', 'pcre', 'web1', false],
  ['(?i)WEB', 'pcre', 'web1', true],
  ['web(', 'pcre', 'web1', false],
  // list: exact ids, text compared as is
  ['web1,web2', 'list', 'web2', true],
  ['web1,web2', 'list', 'web', false],
  ['web1, web2', 'list', 'web2', false],
  [['web1', 'web2'], 'list', 'web1', true],
  ['web1', 'list', 'web1', true],
  ['web*', 'list', 'web1', false],
  // grain: subdict_match
  ['os:Debian', 'grain', 'm', true],
  ['os:debian', 'grain', 'm', true],
  ['os:Deb*', 'grain', 'm', true],
  ['os:Ubuntu', 'grain', 'm', false],
  ['os', 'grain', 'm', false],
  ['roles:web', 'grain', 'm', true],
  ['roles:cache', 'grain', 'm', true],
  ['roles:db', 'grain', 'm', false],
  ['roles:-1:cache', 'grain', 'm', true],
  ['locale_info:timezone:UTC', 'grain', 'm', true],
  ['locale_info:timezone', 'grain', 'm', true],
  ['locale_info:*', 'grain', 'm', true],
  ['locale_info:*:UTC', 'grain', 'm', true],
  ['*:kvm', 'grain', 'm', true],
  ['*:nomatch', 'grain', 'm', false],
  ['num_cpus:4', 'grain', 'm', true],
  ['is_proxy:False', 'grain', 'm', true],
  ['is_proxy:false', 'grain', 'm', true],
  ['deep:a:b:c:d', 'grain', 'm', true],
  ['list_of_dicts:name:eth0', 'grain', 'm', true],
  ['list_of_dicts:0:mtu:1500', 'grain', 'm', true],
  ['empty:*', 'grain', 'm', false],
  ['nothing:None', 'grain', 'm', true],
  ['fqdn:*.example.com', 'grain', 'm', true],
  ['ipv4:10.1.*', 'grain', 'm', true],
  ['salt:version:3007', 'grain', 'm', false],
  ['salt:version%3007', 'grain', 'm', true, { delimiter: '%' }],
  ['locale_info%timezone%UTC', 'grain', 'm', true, { delimiter: '%' }],
  ['locale_info:timezone:UTC', 'grain', 'm', false, { delimiter: '%' }],
  ['os:Debian', 'grain', 'm', false, { noGrains: true }],
  // grain_pcre: the same walk, lowered regex with re.match
  ['os:Deb.*', 'grain_pcre', 'm', true],
  ['os:ian', 'grain_pcre', 'm', false],
  ['os:DEBIAN', 'grain_pcre', 'm', true],
  ['os:(', 'grain_pcre', 'm', false],
  ['roles:we?b$', 'grain_pcre', 'm', true],
  // pillar, pillar_pcre
  ['role:web', 'pillar', 'm', true, { pillar: true }],
  ['tiers:app:api', 'pillar', 'm', true, { pillar: true }],
  ['role:web', 'pillar', 'm', false],
  ['role:w.b', 'pillar_pcre', 'm', true, { pillar: true }],
  // ipcidr
  ['10.1.2.0/24', 'ipcidr', 'm', true],
  ['10.1.3.0/24', 'ipcidr', 'm', false],
  ['10.1.2.3', 'ipcidr', 'm', true],
  ['10.1.2.4', 'ipcidr', 'm', false],
  ['10.0.0.0/255.0.0.0', 'ipcidr', 'm', true],
  ['2001:db8::/32', 'ipcidr', 'm', true],
  ['2001:0db8:0:0::10', 'ipcidr', 'm', true],
  ['2001:db9::/32', 'ipcidr', 'm', false],
  ['fe80::/10', 'ipcidr', 'm', true],
  ['10.1.2.3/24', 'ipcidr', 'm', false],
  ['not-an-ip', 'ipcidr', 'm', false],
  ['10.1.2.0/24', 'ipcidr', 'm', false, { noGrains: true }],
  // compound
  ['web* and G@os:Debian', 'compound', 'web1', true],
  ['web* and G@os:Ubuntu', 'compound', 'web1', false],
  ['G@os:Ubuntu or web*', 'compound', 'web1', true],
  ['not web*', 'compound', 'web1', false],
  ['not db*', 'compound', 'web1', true],
  ['web* not G@os:Ubuntu', 'compound', 'web1', true],
  ['web* or db* and G@os:Ubuntu', 'compound', 'web1', true],
  ['( web* or db* ) and G@os:Ubuntu', 'compound', 'web1', false],
  ['web* and ( G@os:Ubuntu or G@roles:cache )', 'compound', 'web1', true],
  ['not ( db* or G@os:Ubuntu )', 'compound', 'web1', true],
  ['G%@locale_info%timezone%UTC', 'compound', 'web1', true],
  ['L@web1,web2 and E@web\\d', 'compound', 'web1', true],
  ['S@10.1.2.0/24 and P@os:deb.*', 'compound', 'web1', true],
  ['I@role:web and J@role:^w', 'compound', 'web1', true, { pillar: true }],
  [['web*', 'and', 'G@os:Debian'], 'compound', 'web1', true],
  ['and web*', 'compound', 'web1', false],
  ['web* and', 'compound', 'web1', false],
  ['( and web* )', 'compound', 'web1', false],
  ['web1 web2', 'compound', 'web1', false],
  ['not not web1', 'compound', 'web1', false],
  ['R@%foo or web*', 'compound', 'web1', false],
  ['E@web( or web*', 'compound', 'web1', false],
  ['S@bad or web*', 'compound', 'web1', true],
  ['( web*', 'compound', 'web1', false],
  ['web* )', 'compound', 'web1', false],
  // nodegroups
  ['web', 'nodegroup', 'web1', true],
  ['webdeb', 'nodegroup', 'web1', true],
  ['webdeb', 'nodegroup', 'db1', false],
  ['ids', 'nodegroup', 'db1', true],
  ['ids', 'nodegroup', 'db2', false],
  ['idstr', 'nodegroup', 'db1', true],
  ['regexy', 'nodegroup', 'web7', true],
  ['either', 'nodegroup', 'web3', true],
  ['either', 'nodegroup', 'db1', true],
  ['either', 'nodegroup', 'db2', false],
  ['N@ids and not db*', 'compound', 'web1', true],
  ['N@ids and not db*', 'compound', 'db1', false],
  // brine parenthesises expansions (Salt would read `db* and G@os:Ubuntu or web*`)
  ['db* and N@anyos', 'compound', 'web1', false],
  ['loop1', 'nodegroup', 'web1', false],
  ['nosuchgroup', 'nodegroup', 'web1', false],
  ['N@nosuchgroup or web1', 'compound', 'web1', false],
];

describe('matchTarget table', () => {
  it('has the cases the brief asks for', () => {
    expect(ROWS.length).toBeGreaterThanOrEqual(60);
  });

  it.each(ROWS)('%j (%s) for %s is %s', (tgt, tgtType, id, expected, extra = {}) => {
    const minion: MinionData = { id };
    if (!extra.noGrains) minion.grains = GRAINS;
    if (extra.pillar) minion.pillar = PILLAR;
    const target: Target = { tgt, tgtType, ...(extra.delimiter ? { delimiter: extra.delimiter } : {}) };
    expect(matchTarget(target, minion, { nodegroups: NODEGROUPS })).toBe(expected);
  });
});
