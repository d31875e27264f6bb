/**
 * The pillar top file as Salt's Pillar.get_tops/merge_tops read it: `include:` of other top files,
 * `order:` sorting the targets (the later target's SLS wins a merge), ignore_missing collected
 * over every target, and pillar_source_merging_strategy none reading base's top alone.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compilePillar } from '../../../src/core/pillar';

let root: string;
const write = (rel: string, text: string) => {
  mkdirSync(dirname(join(root, rel)), { recursive: true });
  writeFileSync(join(root, rel), text);
};

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'brine-pillar-top-'));
  write(
    'base/top.sls',
    "base:\n  'web1':\n    - order: 2\n    - b\n  '*':\n    - order: 1\n    - a\n    - gone\n    - ignore_missing: True\ninclude:\n  - more-top\n",
  );
  write('base/more-top.sls', "base:\n  'G@os:Debian':\n    - c\n    - also-gone\n    - ignore_missing: True\n");
  write('base/a.sls', 'who: a\nfrom_a: 1\n');
  write('base/b.sls', 'who: b\n');
  write('base/c.sls', 'from_c: 3\n');
  write('dev/top.sls', "dev:\n  '*':\n    - d\n");
  write('dev/d.sls', 'from_d: 4\n');
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const opts = (extra: Record<string, unknown> = {}) => ({
  pillar_roots: { base: [join(root, 'base')], dev: [join(root, 'dev')] },
  ...extra,
});

describe('the pillar top file', () => {
  it('sorts targets by order:, reads included top files, skips ignore_missing files', async () => {
    const pillar = await compilePillar({ minionId: 'web1', grains: { os: 'Debian' }, opts: opts() });
    expect(pillar).toEqual({ who: 'b', from_a: 1, from_c: 3, from_d: 4 });
    // 'G@os:Debian' (included, no order: 0) sorts before '*' (1) and 'web1' (2).
    expect(Object.keys(pillar)).toEqual(['from_c', 'who', 'from_a', 'from_d']);
  });

  it('reads only the base top file with pillar_source_merging_strategy none and no saltenv', async () => {
    const pillar = await compilePillar({
      minionId: 'web1',
      grains: { os: 'Debian' },
      opts: opts({ pillar_source_merging_strategy: 'none' }),
    });
    expect(pillar.from_d).toBeUndefined();
    const dev = await compilePillar({
      minionId: 'web1',
      grains: { os: 'Debian' },
      saltenv: 'dev',
      opts: opts({ pillar_source_merging_strategy: 'none' }),
    });
    expect(dev).toEqual({ from_d: 4 });
  });
});
