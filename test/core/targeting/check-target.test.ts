import { describe, expect, it } from 'vitest';
import {
  checkTarget,
  expandNodegroups,
  expectedMinions,
  matchTarget,
  needsData,
  type MinionData,
  type Target,
} from '../../../src/core/targeting';
import { TargetError } from '../../../src/core/errors';

const NODEGROUPS = {
  web: 'web*',
  debs: 'G@os:Debian',
  webdeb: 'N@web and N@debs',
  ids: ['web1', 'db1'],
  loop1: 'N@loop2 or web1',
  loop2: 'N@loop1',
  broken: 42 as unknown as string,
};
const opts = { nodegroups: NODEGROUPS };

function errorOf(target: Target): TargetError {
  try {
    checkTarget(target, opts);
  } catch (err) {
    expect(err).toBeInstanceOf(TargetError);
    return err as TargetError;
  }
  throw new Error(`checkTarget accepted ${JSON.stringify(target)}`);
}

describe('checkTarget', () => {
  it.each<[Target, RegExp]>([
    [{ tgt: 'G@os:Debian and and web*', tgtType: 'compound' }, /'and' at word 3 must follow a target/],
    [{ tgt: 'and web*', tgtType: 'compound' }, /'and' at word 1 must follow a target/],
    [{ tgt: 'web* and', tgtType: 'compound' }, /ends after 'and' at word 2/],
    [{ tgt: '( web*', tgtType: 'compound' }, /'\(' at word 1 is never closed/],
    [{ tgt: 'web* )', tgtType: 'compound' }, /'\)' at word 2 has no matching '\('/],
    [{ tgt: 'web1 web2', tgtType: 'compound' }, /'web2' at word 2 must be joined/],
    [{ tgt: 'not not web1', tgtType: 'compound' }, /'not' at word 2 cannot follow 'not'/],
    [{ tgt: '( ) or web1', tgtType: 'compound' }, /empty parentheses at word 1/],
    [{ tgt: '', tgtType: 'compound' }, /empty/],
    [{ tgt: 'R@x or web*', tgtType: 'compound' }, /unsupported target engine 'R@'.*word 1/],
    [{ tgt: 'web* or E@web(', tgtType: 'compound' }, /invalid regular expression 'web\('.*word 3/],
    [{ tgt: 'web* or G@os', tgtType: 'compound' }, /no ':' between the grain and the pattern.*word 3/],
    [{ tgt: 'S@10.0.0.1/8 or web*', tgtType: 'compound' }, /host bits set.*word 1/],
    [{ tgt: 'G@ or web*', tgtType: 'compound' }, /'G@' at word 1 has no pattern/],
    [{ tgt: 'N@nosuch or web1', tgtType: 'compound' }, /unknown nodegroup 'nosuch' at word 1/],
    [{ tgt: ['web1'], tgtType: 'glob' }, /glob target must be a string/],
    [{ tgt: 'web(', tgtType: 'pcre' }, /invalid regular expression 'web\('.*position/],
    [{ tgt: '(?>a)', tgtType: 'pcre' }, /unsupported group syntax/],
    [{ tgt: 'web\\q', tgtType: 'pcre' }, /bad escape \\q/],
    [{ tgt: 'os', tgtType: 'grain' }, /no ':'/],
    [{ tgt: 'os:Debian', tgtType: 'grain', delimiter: '' }, /delimiter must not be empty/],
    [{ tgt: 'os:(', tgtType: 'grain_pcre' }, /invalid regular expression/],
    [{ tgt: '10.1.2.3/24', tgtType: 'ipcidr' }, /host bits set/],
    [{ tgt: '300.1.1.1', tgtType: 'ipcidr' }, /not an IP address or network/],
    [{ tgt: '010.1.1.1', tgtType: 'ipcidr' }, /not an IP address or network/],
    [{ tgt: '2001:db8::/129', tgtType: 'ipcidr' }, /invalid prefix/],
    [{ tgt: 'nosuch', tgtType: 'nodegroup' }, /unknown nodegroup 'nosuch'/],
    [{ tgt: 'loop1', tgtType: 'nodegroup' }, /nodegroup 'loop1' includes itself \(loop1 -> loop2 -> loop1\)/],
    [{ tgt: 'broken', tgtType: 'nodegroup' }, /neither a string nor a list/],
    [{ tgt: 'web*', tgtType: 'sideways' as never }, /unknown target type 'sideways'/],
    [{ tgt: 12 as unknown as string, tgtType: 'list' }, /list target must be/],
    [{ tgt: { a: 1 } as unknown as string, tgtType: 'compound' }, /string or a list of words/],
  ])('rejects %j', (target, message) => {
    const err = errorOf(target);
    expect(err.code).toBe('BAD_TARGET');
    expect(err.message).toMatch(message);
  });

  it('names the target in the message', () => {
    expect(errorOf({ tgt: 'G@os:Debian and and web*', tgtType: 'compound' }).message).toBe(
      "compound target 'G@os:Debian and and web*': 'and' at word 3 must follow a target",
    );
  });

  it.each<Target>([
    { tgt: 'web*', tgtType: 'glob' },
    { tgt: 'web\\d+', tgtType: 'pcre' },
    { tgt: ['web1', 'web2'], tgtType: 'list' },
    { tgt: 'os:Debian', tgtType: 'grain' },
    { tgt: 'os%Debian', tgtType: 'grain', delimiter: '%' },
    { tgt: 'os:deb.*', tgtType: 'grain_pcre' },
    { tgt: 'role:web', tgtType: 'pillar' },
    { tgt: '2001:db8::/32', tgtType: 'ipcidr' },
    { tgt: 'web* and not ( G@os:Ubuntu or L@db1,db2 )', tgtType: 'compound' },
    { tgt: 'webdeb', tgtType: 'nodegroup' },
  ])('accepts %j', (target) => {
    expect(() => checkTarget(target, opts)).not.toThrow();
  });

  it('never throws out of matchTarget for the same bad input', () => {
    expect(matchTarget({ tgt: 'G@os:Debian and and web*', tgtType: 'compound' }, { id: 'web1', grains: {} }, opts)).toBe(false);
    expect(matchTarget({ tgt: 'x', tgtType: 'sideways' as never }, { id: 'x' })).toBe(false);
    expect(matchTarget(null as unknown as Target, { id: 'x' })).toBe(false);
  });
});

describe('expectedMinions', () => {
  const minions: MinionData[] = [
    { id: 'web1', grains: { os: 'Debian' } },
    { id: 'web2' },
    { id: 'db1', grains: { os: 'Debian' } },
    { id: 'web3', grains: { os: 'Ubuntu' } },
  ];

  it('is greedy: a minion without grains is included when the target needs grains', () => {
    expect(expectedMinions({ tgt: 'os:Debian', tgtType: 'grain' }, minions)).toEqual(['web1', 'web2', 'db1']);
    expect(expectedMinions({ tgt: '10.0.0.0/8', tgtType: 'ipcidr' }, minions)).toEqual(['web2']);
  });

  it('includes a minion without grains only when the known part of a compound allows it', () => {
    expect(expectedMinions({ tgt: 'db* and G@os:Debian', tgtType: 'compound' }, minions)).toEqual(['db1']);
    expect(expectedMinions({ tgt: 'not G@os:Debian', tgtType: 'compound' }, minions)).toEqual(['web2', 'web3']);
    expect(expectedMinions({ tgt: 'web2 or G@os:Ubuntu', tgtType: 'compound' }, minions)).toEqual(['web2', 'web3']);
  });

  it('keeps input order and needs no data for id targets', () => {
    expect(expectedMinions({ tgt: 'web*', tgtType: 'glob' }, minions)).toEqual(['web1', 'web2', 'web3']);
    expect(expectedMinions({ tgt: ['db1', 'web1'], tgtType: 'list' }, minions)).toEqual(['web1', 'db1']);
  });

  it('treats missing pillar as unknown, so pillar targets are greedy too', () => {
    const withPillar: MinionData[] = [
      { id: 'a', grains: {}, pillar: { role: 'web' } },
      { id: 'b', grains: {}, pillar: { role: 'db' } },
      { id: 'c', grains: {} },
    ];
    expect(expectedMinions({ tgt: 'role:web', tgtType: 'pillar' }, withPillar)).toEqual(['a', 'c']);
  });

  it('returns nothing for an invalid target', () => {
    expect(expectedMinions({ tgt: 'and web*', tgtType: 'compound' }, minions)).toEqual([]);
  });

  it('handles ten thousand minions with one compiled expression', () => {
    const many: MinionData[] = [];
    for (let i = 0; i < 10_000; i++) {
      many.push({ id: `node${i}`, grains: { os: i % 2 === 0 ? 'Debian' : 'Ubuntu', roles: ['web'] } });
    }
    const ids = expectedMinions({ tgt: 'node1* and G@os:Debian and G@roles:web', tgtType: 'compound' }, many);
    // node1, node10..node19, node100..node199, node1000..node1999: 1111 ids, half of them even.
    expect(ids).toHaveLength(555);
    expect(ids[0]).toBe('node10');
  });
});

describe('needsData', () => {
  it.each<[Target, boolean]>([
    [{ tgt: 'web*', tgtType: 'glob' }, false],
    [{ tgt: 'web1,web2', tgtType: 'list' }, false],
    [{ tgt: 'os:Debian', tgtType: 'grain' }, true],
    [{ tgt: 'role:web', tgtType: 'pillar_pcre' }, true],
    [{ tgt: '10.0.0.0/8', tgtType: 'ipcidr' }, true],
    [{ tgt: 'web* or E@db\\d', tgtType: 'compound' }, false],
    [{ tgt: 'web* and G@os:Debian', tgtType: 'compound' }, true],
    [{ tgt: 'webdeb', tgtType: 'nodegroup' }, true],
    [{ tgt: 'ids', tgtType: 'nodegroup' }, false],
  ])('%j -> %s', (target, expected) => {
    expect(needsData(target, opts)).toBe(expected);
  });
});

describe('expandNodegroups', () => {
  it('turns a nodegroup into the compound expression minions can evaluate', () => {
    expect(expandNodegroups({ tgt: 'webdeb', tgtType: 'nodegroup' }, opts)).toEqual({
      tgt: '( web* and G@os:Debian )',
      tgtType: 'compound',
    });
    expect(expandNodegroups({ tgt: 'ids', tgtType: 'nodegroup' }, opts)).toEqual({ tgt: 'L@web1,db1', tgtType: 'compound' });
    expect(expandNodegroups({ tgt: 'N@ids and not db*', tgtType: 'compound' }, opts)).toEqual({
      tgt: 'L@web1,db1 and not db*',
      tgtType: 'compound',
    });
  });

  it('leaves other targets alone and rejects bad ones', () => {
    const glob: Target = { tgt: 'web*', tgtType: 'glob' };
    expect(expandNodegroups(glob, opts)).toBe(glob);
    expect(() => expandNodegroups({ tgt: 'loop1', tgtType: 'nodegroup' }, opts)).toThrowError(
      expect.objectContaining({ code: 'BAD_TARGET' }),
    );
  });
});

describe('garbage minion data', () => {
  it('matchTarget answers false instead of throwing', () => {
    const t: Target = { tgt: '10.0.0.0/8', tgtType: 'ipcidr' };
    expect(matchTarget(t, { id: 'a', grains: null as unknown as Record<string, unknown> })).toBe(false);
    expect(matchTarget({ tgt: 'os:x', tgtType: 'grain' }, { id: 'a', grains: 'x' as unknown as Record<string, unknown> })).toBe(false);
    expect(matchTarget({ tgt: '*', tgtType: 'glob' }, { id: 7 } as unknown as MinionData)).toBe(false);
    expect(matchTarget({ tgt: '*', tgtType: 'glob' }, undefined as unknown as MinionData)).toBe(false);
  });

  it('expectedMinions names the bad entry', () => {
    expect(() => expectedMinions({ tgt: '*', tgtType: 'glob' }, [{ id: 'a' }, {} as MinionData])).toThrowError(
      expect.objectContaining({ code: 'BAD_MINION_DATA', message: expect.stringContaining('index 1') }),
    );
  });
});
