/**
 * plugins/manifest.ts, the table a minion or salt-call from the compiled tree loads built-in
 * modules by: it must say what the classes' decorators say, in plugins/index.ts's order.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BUILTIN_MASTER_PLUGINS, BUILTIN_PLUGINS } from '../../plugins';
import { BUILTIN_GRAINS_PROVIDERS, BUILTIN_MANIFEST, lazyBuiltins } from '../../plugins/manifest';
import { readGrainsProvider, readModule } from '../../src/plugins/api/metadata';

const REPO = join(__dirname, '..', '..');

async function classOf(entry: { file: string; export: string }): Promise<unknown> {
  const mod = (await import(join(REPO, 'plugins', entry.file))) as Record<string, unknown>;
  return mod[entry.export];
}

describe('the built-in plugin manifest', () => {
  it('lists every built-in module with the kind and name its decorator gives, in load order', async () => {
    const expected = [
      ...BUILTIN_MASTER_PLUGINS.map((cls) => ({ cls, listedOnly: true })),
      ...BUILTIN_PLUGINS.filter((cls) => readModule(cls) !== undefined).map((cls) => ({ cls, listedOnly: undefined })),
    ];
    expect(BUILTIN_MANIFEST.length).toBe(expected.length);
    for (const [i, entry] of BUILTIN_MANIFEST.entries()) {
      const cls = await classOf(entry);
      expect(cls, `${entry.file} ${entry.export}`).toBe(expected[i].cls);
      expect({ kind: entry.kind, name: entry.name, listedOnly: entry.listedOnly }).toEqual({
        kind: readModule(cls)?.kind,
        name: readModule(cls)?.name,
        listedOnly: expected[i].listedOnly,
      });
    }
  });

  it('lists the grains providers, loaded at start', async () => {
    const providers = BUILTIN_PLUGINS.filter((cls) => readGrainsProvider(cls) !== undefined);
    expect(await Promise.all(BUILTIN_GRAINS_PROVIDERS.map(classOf))).toEqual(providers);
  });

  it('is used from the compiled tree only: from the sources (vitest) all built-ins load at once', () => {
    expect(lazyBuiltins()).toBeUndefined();
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const compiled = (require(join(REPO, 'dist', 'plugins', 'manifest.js')) as typeof import('../../plugins/manifest')).lazyBuiltins();
    expect(compiled?.builtins).toHaveLength(BUILTIN_GRAINS_PROVIDERS.length);
    expect(compiled?.lazyBuiltins.map((e) => typeof e.load())).toEqual(BUILTIN_MANIFEST.map(() => 'function'));
  });
});
