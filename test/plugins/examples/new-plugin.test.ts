import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryGrains, fakeShell } from 'brine/testing';
import { pluginFiles, scaffoldPlugin } from '../../../scripts/new-plugin';
import { Executor } from '../../../src/plugins/executor';
import { PluginLoader } from '../../../src/plugins/loader/loader';
import { StaticConfig } from '../../../src/plugins/services/config';
import { StreamLogger } from '../../../src/plugins/services/logger';
import { installPackage } from './build-package';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('new-plugin scaffold', () => {
  it('writes a package that loads through PluginLoader and runs', async () => {
    const root = mkdtempSync(join(tmpdir(), 'brine-scaffold-'));
    dirs.push(root);
    const dir = scaffoldPlugin('disk_tools', root);
    expect(dir).toBe(join(root, 'brine-plugin-disk-tools'));
    for (const f of ['package.json', 'tsconfig.json', 'src/index.ts', 'src/disk_tools.module.ts', 'test/disk_tools.module.test.ts']) {
      expect(existsSync(join(dir, f))).toBe(true);
    }
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    expect(pkg).toMatchObject({
      name: 'brine-plugin-disk-tools',
      brine: { entry: 'dist/index.js' },
      peerDependencies: { brine: '>=0.1.0' },
    });
    installPackage(dir, join(root, 'node_modules'), 'brine-plugin-disk-tools');
    const plugins = await new PluginLoader({
      config: new StaticConfig({ id: 'm' }),
      grains: new MemoryGrains({}),
      shell: fakeShell(() => ({ stdout: 'Linux\n' })),
      logger: new StreamLogger('error', () => undefined),
      builtins: [],
      moduleDirs: [],
      npm: { nodeModules: [join(root, 'node_modules')] },
    }).load();
    expect(plugins.registry.problems).toEqual([]);
    expect(plugins.registry.functionNames()).toEqual(['disk_tools.echo', 'disk_tools.kernel']);
    const ex = new Executor(plugins);
    expect((await ex.run({ fun: 'disk_tools.echo', arg: ['hi'], jid: '1' })).return).toBe('hi');
    expect((await ex.run({ fun: 'disk_tools.kernel', arg: [], jid: '2' })).return).toBe('Linux');
  });

  it('refuses bad names and existing folders', () => {
    expect(() => pluginFiles('bad-name')).toThrow(/module name must be a word/);
    const root = mkdtempSync(join(tmpdir(), 'brine-scaffold-'));
    dirs.push(root);
    scaffoldPlugin('x', root);
    expect(() => scaffoldPlugin('x', root)).toThrow(/already exists/);
  });
});
