import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryGrains, fakeShell } from 'brine/testing';
import { BUILTIN_PLUGINS } from '../../../plugins';
import { Executor } from '../../../src/plugins/executor';
import { PluginLoader } from '../../../src/plugins/loader/loader';
import { StaticConfig } from '../../../src/plugins/services/config';
import { StreamLogger } from '../../../src/plugins/services/logger';
import { installPackage } from './build-package';

// The example's own tests, run by this repository's vitest.
import '../../../examples/brine-plugin-hello/test/hello.module.test';
import '../../../examples/brine-plugin-hello/test/hello.state.test';

const EXAMPLE = resolve(__dirname, '../../../examples/brine-plugin-hello');
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('the example plugin installed as an npm package', () => {
  it('is found by name in node_modules and runs through the Executor', async () => {
    const root = mkdtempSync(join(tmpdir(), 'brine-npm-'));
    dirs.push(root);
    installPackage(EXAMPLE, join(root, 'node_modules'), 'brine-plugin-hello');
    const plugins = await new PluginLoader({
      config: new StaticConfig({ id: 'web1' }),
      grains: new MemoryGrains({ kernel: 'Linux', id: 'web1' }),
      shell: fakeShell(() => ({ stdout: 'up 3 days\n' })),
      logger: new StreamLogger('error', () => undefined),
      builtins: BUILTIN_PLUGINS,
      moduleDirs: [],
      npm: { nodeModules: [join(root, 'node_modules')] },
    }).load();
    expect(plugins.registry.module('hello')?.origin).toBe('npm:brine-plugin-hello');
    // Its state module too: hello.greeting and the mod_watch a watch calls.
    expect(plugins.registry.find('hello.greeting', 'state')).toBeDefined();
    expect(plugins.registry.find('hello.mod_watch', 'state')).toBeDefined();
    const ex = new Executor(plugins);
    expect(await ex.run({ fun: 'hello.world', arg: [], jid: '20240101000000000001' })).toEqual({
      return: 'hello world from web1',
      retcode: 0,
      success: true,
    });
    expect(
      (await ex.run({ fun: 'hello.greet', arg: ['ann', { __kwarg__: true, punctuation: '.' }], jid: '20240101000000000002' })).return,
    ).toBe('hello ann.');
    expect((await ex.run({ fun: 'hello.uptime', arg: [], jid: '20240101000000000003' })).return).toBe('up 3 days');
    expect((await ex.run({ fun: 'sys.doc', arg: ['hello.world'], jid: '20240101000000000004' })).return).toEqual({
      'hello.world': "\n    Return 'hello world' and the minion's id\n\n    CLI Example:\n\n        salt '*' hello.world\n    ",
    });
  });
});
