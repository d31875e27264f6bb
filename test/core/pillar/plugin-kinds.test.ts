/**
 * Renderer and ext_pillar plugins reach the pipeline and the pillar compiler, and the pillar
 * compiler's own rules (top matchers, include, merge order, errors) hold.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ExtPillar, Pillar, Render, Renderer, arg } from 'brine/plugin';
import { MemoryGrains } from 'brine/testing';
import { BUILTIN_PLUGINS } from '../../../plugins';
import { compilePillar } from '../../../src/core/pillar';
import { PluginRuntime } from '../../../src/plugins/runtime';
import { extPillarsOf, renderersOf } from '../../../src/plugins/render-kinds';
import { StaticConfig } from '../../../src/plugins/services/config';
import { StreamLogger } from '../../../src/plugins/services/logger';

@Renderer('upper')
class UpperRenderer {
  @Render()
  render(input: unknown): unknown {
    return String(input).toUpperCase();
  }
}

@ExtPillar('static_data')
class StaticData {
  @Pillar({ args: { value: arg.string() } })
  pillar({ value }: { value: string }, ctx: { minionId: string }): Record<string, unknown> {
    return { from_plugin: `${value} for ${ctx.minionId}` };
  }
}

const root = mkdtempSync(join(tmpdir(), 'brine-pillar-kinds-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function write(rel: string, text: string): void {
  mkdirSync(join(root, rel, '..'), { recursive: true });
  writeFileSync(join(root, rel), text);
}

write('top.sls', "base:\n  '*':\n    - common\n  'G@os:Debian and web*':\n    - web\n  'db*':\n    - match: glob\n    - db\n");
write('common.sls', 'include:\n  - .extra\nshared: common\nlist: [1]\n');
write('extra.sls', 'shared: extra\nfrom_extra: yes\n');
write('web.sls', '#!jinja|upper|yaml\nrole: {{ grains["os"] }}\n');
write('db.sls', 'role: db\n');

describe('pillar compiler', () => {
  it('matches tops (compound by default, match: lines), includes first, later files win, plugins render and add', async () => {
    const runtime = await PluginRuntime.start({
      config: new StaticConfig({ id: 'web1' }),
      grains: new MemoryGrains({ os: 'Debian', id: 'web1' }),
      logger: new StreamLogger('error', () => undefined),
      builtins: [...BUILTIN_PLUGINS, UpperRenderer, StaticData],
    });
    const pillar = await compilePillar({
      minionId: 'web1',
      grains: { os: 'Debian', id: 'web1' },
      opts: { pillar_roots: { base: [root] }, ext_pillar: [{ static_data: { value: 'v' } }] },
      renderers: renderersOf(runtime),
      extPillars: extPillarsOf(runtime),
    });
    expect(pillar).toEqual({ shared: 'common', from_extra: true, list: [1], ROLE: 'DEBIAN', from_plugin: 'v for web1' });
    expect(Object.keys(pillar)).toEqual(['shared', 'from_extra', 'list', 'ROLE', 'from_plugin']);
  });

  it('merges lists with pillar_merge_lists, and reports a missing SLS and a broken ext_pillar in _errors', async () => {
    write('top2/top.sls', "base:\n  '*':\n    - a\n    - b\n    - missing\n");
    write('top2/a.sls', 'l: [1, 2]\nd: {x: 1}\n');
    write('top2/b.sls', 'l: [2, 3]\nd: {y: 2}\n');
    const pillar = await compilePillar({
      minionId: 'm1',
      grains: {},
      opts: { pillar_roots: { base: [join(root, 'top2')] }, pillar_merge_lists: true, ext_pillar: [{ cmd_json: 'exit 3' }, { nope: {} }] },
    });
    expect(pillar.l).toEqual([1, 2, 3]);
    expect(pillar.d).toEqual({ x: 1, y: 2 });
    expect(pillar._errors).toEqual(["Specified SLS 'missing' in environment 'base' is not available on the salt master"]);
  });

  it('a command-line override wins over everything', async () => {
    const pillar = await compilePillar({
      minionId: 'db1',
      grains: {},
      opts: { pillar_roots: { base: [root] } },
      pillarOverride: { role: 'cli' },
    });
    expect(pillar.role).toBe('cli');
  });
});
