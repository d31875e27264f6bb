import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { brineInstallRoot, pluginPackageDirs } from '../../../src/plugins/loader/package-dirs';
import { PluginDefinitionError } from '../../../src/plugins/api/errors';
import { tempDirs } from '../../support/temp-dirs';

const REPO = resolve(__dirname, '../../..');
const tmp = tempDirs('brine-pkgdirs-');

/** A fake installation: `<root>/node_modules/brine` with its own node_modules. */
function installedBrine(): { root: string; brine: string } {
  const root = tmp();
  const brine = join(root, 'node_modules', 'brine');
  mkdirSync(join(brine, 'node_modules'), { recursive: true });
  mkdirSync(join(brine, 'dist', 'src'), { recursive: true });
  writeFileSync(join(brine, 'package.json'), JSON.stringify({ name: 'brine' }));
  return { root, brine };
}

describe('brineInstallRoot', () => {
  it('finds this checkout from its sources', () => {
    expect(brineInstallRoot(__dirname)).toBe(REPO);
  });

  it('finds an installed brine from inside its dist folder, skipping other package.json files', () => {
    const { brine } = installedBrine();
    writeFileSync(join(brine, 'dist', 'package.json'), JSON.stringify({ name: 'not-brine' }));
    expect(brineInstallRoot(join(brine, 'dist', 'src'))).toBe(brine);
  });

  it('answers undefined when no brine package is above', () => {
    expect(brineInstallRoot(tmp())).toBeUndefined();
  });
});

describe('pluginPackageDirs', () => {
  it("searches plugin_dirs (and their node_modules), then brine's own node_modules, then its siblings", () => {
    const { root, brine } = installedBrine();
    const prefix = tmp();
    mkdirSync(join(prefix, 'node_modules'));
    const plain = tmp();
    expect(pluginPackageDirs([prefix, plain], brine)).toEqual({
      dirs: [prefix, join(prefix, 'node_modules'), plain, join(brine, 'node_modules'), join(root, 'node_modules')],
      problems: [],
    });
  });

  it('takes one folder as a string and nothing at all', () => {
    const prefix = tmp();
    expect(pluginPackageDirs(prefix, null).dirs).toEqual([prefix]);
    expect(pluginPackageDirs(undefined, null)).toEqual({ dirs: [], problems: [] });
    expect(pluginPackageDirs(null, REPO).dirs).toEqual([join(REPO, 'node_modules')]);
  });

  it('reports bad entries as problems naming them and keeps the good ones', () => {
    const good = tmp();
    const { dirs: found, problems } = pluginPackageDirs(['relative/dir', join(good, 'missing'), 7, good], null);
    expect(found).toEqual([good]);
    expect(problems.map((p) => p.origin)).toEqual(['plugin_dirs', 'plugin_dirs', 'plugin_dirs']);
    for (const p of problems) expect(p.error).toBeInstanceOf(PluginDefinitionError);
    expect(problems.map((p) => p.error.message)).toEqual([
      'plugin_dirs entry "relative/dir" is not an absolute path',
      `plugin_dirs entry ${join(good, 'missing')} is not a directory`,
      'plugin_dirs entry 7 is not an absolute path',
    ]);
  });

  it('refuses a plugin_dirs that is not a list', () => {
    const { dirs: found, problems } = pluginPackageDirs({ a: 1 }, null);
    expect(found).toEqual([]);
    expect(problems).toHaveLength(1);
    expect(problems[0].error.message).toBe('plugin_dirs must be a list of folders, got {"a":1}');
  });
});
