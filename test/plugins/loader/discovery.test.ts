/**
 * How plugin packages are found in a node_modules folder: the default `brine-plugin-*` pattern
 * is read from the folder's listing (scoped packages too), any other pattern through glob; both
 * give the same names, sorted.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { globSync } from 'glob';
import { afterAll, describe, expect, it } from 'vitest';
import { findPluginPackages } from '../../../src/plugins/loader/discovery';

const root = mkdtempSync(join(tmpdir(), 'brine-discovery-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
for (const name of [
  'brine-plugin-b',
  'brine-plugin-a',
  'other',
  '.brine-plugin-hidden',
  '@acme/brine-plugin-z',
  '@acme/tools',
  'brine-extra-1',
]) {
  mkdirSync(join(root, name), { recursive: true });
  writeFileSync(join(root, name, 'package.json'), '{}');
}

describe('findPluginPackages', () => {
  it('finds brine-plugin-* and @scope/brine-plugin-*, not hidden folders, in name order', () => {
    expect([...findPluginPackages({ nodeModules: [root] }).keys()]).toEqual(['@acme/brine-plugin-z', 'brine-plugin-a', 'brine-plugin-b']);
  });

  it('gives a prefix pattern the answer glob gives', () => {
    for (const pattern of ['brine-*', 'brine-plugin-*', '*']) {
      expect([...findPluginPackages({ nodeModules: [root], pattern }).keys()], pattern).toEqual(
        globSync([pattern, `@*/${pattern}`], { cwd: root, nodir: false }).sort(),
      );
    }
    // A pattern with more than a trailing `*` goes through glob.
    expect([...findPluginPackages({ nodeModules: [root], pattern: 'brine-extra-?' }).keys()]).toEqual(['brine-extra-1']);
    expect([...findPluginPackages({ nodeModules: [root], pattern: '{other,brine-plugin-a}' }).keys()]).toEqual(['brine-plugin-a', 'other']);
  });
});
