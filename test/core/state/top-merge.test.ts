/**
 * top_file_merging_strategy and env_order (top-merge.ts, top.ts). The merged tops expected below
 * were printed by Salt 3007.10's own BaseHighState._merge_tops_merge / _same / _merge_all on the
 * same input.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mergeTops, topEnvs, topMergeStrategy, type TopData, type TopMergeStrategy } from '../../../src/core/state/top-merge';
import { topMatches } from '../../../src/core/state/top';
import { LocalSlsSource } from '../../../src/core/state/sls-source';
import { PipelineSlsRenderer } from '../../../src/core/state/render-sls';

type Case = { strategy: TopMergeStrategy; tops: [string, TopData[]][]; salt: Record<string, [string, unknown[]][]>; log?: string };

const CASES: Case[] = [
  {
    strategy: 'merge',
    tops: [
      ['base', [{ base: { '*': ['core'], 'web*': ['web'] }, dev: { '*': ['from-base'] } }]],
      ['dev', [{ dev: { '*': ['dev-own'] }, qa: { '*': ['qa-from-dev'] } }]],
      ['qa', [{ qa: { '*': ['qa-own'] } }]],
    ],
    salt: {
      base: [
        ['*', ['core']],
        ['web*', ['web']],
      ],
      dev: [['*', ['from-base']]],
      qa: [['*', ['qa-own']]],
    },
  },
  {
    strategy: 'merge',
    tops: [
      ['base', [{ base: { '*': ['core'] } }]],
      ['dev', [{ dev: { '*': ['dev-own'] }, base: { '*': ['ignored'] } }]],
    ],
    salt: { base: [['*', ['core']]], dev: [['*', ['dev-own']]] },
  },
  {
    strategy: 'same',
    tops: [
      ['base', [{ base: { '*': ['core'] }, dev: { '*': ['dev-from-base'] } }]],
      ['dev', [{ dev: { '*': ['dev-own'] }, base: { '*': ['base-from-dev'] } }]],
      ['qa', [{}]],
    ],
    salt: { base: [['*', ['core']]], dev: [['*', ['dev-own']]] },
    log: "The 'qa' saltenv has no top file, and no matches were found in the top file for the default_top saltenv (base)",
  },
  {
    strategy: 'same',
    tops: [
      ['base', [{ base: { '*': ['core'] }, qa: { 'G@os:Debian': [{ match: 'compound' }, 'qa-from-base'] } }]],
      ['qa', [{}]],
    ],
    salt: { base: [['*', ['core']]], qa: [['G@os:Debian', [{ match: 'compound' }, 'qa-from-base']]] },
  },
  {
    strategy: 'merge_all',
    tops: [
      ['base', [{ base: { '*': ['core', 'a'], 'db*': ['db'] }, dev: { '*': ['d1'] } }]],
      ['dev', [{ base: { '*': [{ match: 'glob' }, 'a', 'extra'] }, dev: { '*': ['d2'] } }]],
    ],
    salt: {
      base: [
        ['*', [{ match: 'glob' }, 'core', 'a', 'extra']],
        ['db*', ['db']],
      ],
      dev: [['*', ['d1', 'd2']]],
    },
  },
];

function plain(top: Map<string, Map<string, unknown[]>>): Record<string, [string, unknown[]][]> {
  return Object.fromEntries([...top].map(([env, targets]) => [env, [...targets]]));
}

describe('merging top files as Salt 3007 does', () => {
  it.each(CASES.map((c, i) => [i, c] as const))('case %i', (_i, c) => {
    const logs: string[] = [];
    expect(plain(mergeTops(new Map(structuredClone(c.tops)), c.strategy, 'base', (m) => logs.push(m)))).toEqual(c.salt);
    expect(logs).toEqual(c.log ? [c.log] : []);
  });

  it('reads base first, then the other environments, unless env_order says otherwise', () => {
    expect(topEnvs(['dev', 'base', 'qa'])).toEqual(['base', 'dev', 'qa']);
    expect(topEnvs(['dev', 'base', 'qa'], ['qa', 'dev', 'qa', 'nope'])).toEqual(['qa', 'dev']);
  });

  it('falls back to merge for an unknown strategy, with a warning', () => {
    const logs: string[] = [];
    expect(topMergeStrategy('bogus', (m) => logs.push(m))).toBe('merge');
    expect(logs).toEqual(["Invalid top_file_merging_strategy 'bogus', falling back to 'merge'"]);
  });
});

describe('top matches over real top files', () => {
  let root: string;
  const write = (rel: string, text: string) => {
    mkdirSync(dirname(join(root, rel)), { recursive: true });
    writeFileSync(join(root, rel), text);
  };

  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'brine-top-'));
    write(
      'base/top.sls',
      "base:\n  '*':\n    - core\n  'G@os:Debian and web*':\n    - debian-web\ndev:\n  '*':\n    - from-base\ninclude:\n  - extra-top\n",
    );
    write('base/extra-top.sls', "base:\n  'web1':\n    - extra\n");
    write(
      'dev/top.sls',
      "dev:\n  '*':\n    - dev-own\n  'os:Debian':\n    - match: grain\n    - debian-dev\n  'os:RedHat':\n    - match: grain\n    - redhat-dev\nbase:\n  '*':\n    - base-from-dev\n",
    );
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  const ctx = (extra: Record<string, unknown> = {}) => ({
    source: new LocalSlsSource({ base: [join(root, 'base')], dev: [join(root, 'dev')] }),
    renderer: new PipelineSlsRenderer({}),
    stateTop: 'top.sls',
    minionId: 'web1',
    grains: { os: 'Debian' },
    pillar: {},
    ...extra,
  });

  it('merge: base is authoritative, compound targets, top includes', async () => {
    expect(await topMatches(ctx())).toEqual({ matches: { base: ['core', 'debian-web', 'extra'], dev: ['from-base'] }, errors: [] });
  });

  it('same: each environment from its own top file', async () => {
    expect(await topMatches(ctx({ strategy: 'same' }))).toEqual({
      matches: { base: ['core', 'debian-web', 'extra'], dev: ['dev-own', 'debian-dev'] },
      errors: [],
    });
  });

  it('merge_all: every section of every top file', async () => {
    expect(await topMatches(ctx({ strategy: 'merge_all' }))).toEqual({
      matches: { base: ['core', 'base-from-dev', 'debian-web', 'extra'], dev: ['from-base', 'dev-own', 'debian-dev'] },
      errors: [],
    });
  });

  it('env_order and a named saltenv choose the top files read', async () => {
    expect(await topMatches(ctx({ envOrder: ['dev'] }))).toEqual({ matches: { dev: ['dev-own', 'debian-dev'] }, errors: [] });
    expect(await topMatches(ctx({ saltenv: 'dev' }))).toEqual({ matches: { dev: ['dev-own', 'debian-dev'] }, errors: [] });
  });
});
