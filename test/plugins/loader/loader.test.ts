import { describe, expect, it } from 'vitest';
import * as hostApi from 'brine/plugin';
import { createHarness, MemoryGrains } from 'brine/testing';
import { BUILTIN_PLUGINS, PkgModule } from '../../../plugins';
import { readModule } from '../../../src/plugins/api/metadata';
import { Executor } from '../../../src/plugins/executor';
import { PluginLoader } from '../../../src/plugins/loader/loader';
import { StaticConfig } from '../../../src/plugins/services/config';
import { StreamLogger } from '../../../src/plugins/services/logger';
import { allBuiltinModules, builtinModules, fixture } from '../fixtures';

const quiet = new StreamLogger('error', () => undefined);

function loader(
  opts: { moduleDirs?: string[]; npm?: { nodeModules: string[]; packages?: string[] }; grains?: Record<string, unknown> } = {},
) {
  return new PluginLoader({
    config: new StaticConfig({ id: 'web1' }),
    grains: new MemoryGrains(opts.grains ?? { kernel: 'Linux' }),
    logger: quiet,
    builtins: BUILTIN_PLUGINS,
    moduleDirs: opts.moduleDirs ?? [],
    npm: opts.npm,
  });
}

describe('PluginLoader', () => {
  it('loads the built-ins', async () => {
    const { registry } = await loader().load();
    // A bare loader has no minion control: saltutil says so and the rest load.
    expect(registry.problems.map((p) => [p.module, p.error.message])).toEqual([
      ['saltutil', expect.stringContaining('depends on unknown service IMinionControl')],
    ]);
    expect(registry.moduleNames()).toEqual(builtinModules({ kernel: 'Linux' }, ['saltutil']));
    expect(registry.functionNames()).toEqual(expect.arrayContaining(['test.ping', 'test.true', 'cmd.run_all', 'grains.get']));
    expect(registry.functionNames().some((f) => f.includes('._'))).toBe(false);
  });

  it('loads a module_dirs JavaScript module that gets the host API instance', async () => {
    const plugins = await loader({ moduleDirs: [fixture('module_dirs')] }).load();
    expect(plugins.registry.problems.filter((p) => p.module !== 'saltutil')).toEqual([]);
    const hello = plugins.registry.module('hello');
    expect(hello?.origin).toBe(fixture('module_dirs', 'hello.js'));
    const mod = require(fixture('module_dirs', 'hello.js')) as { hostApi: unknown };
    expect(mod.hostApi).toBe(hostApi);
    const ex = new Executor(plugins);
    expect(await ex.run({ fun: 'hello.greet', arg: ['world'], jid: '1' })).toEqual({ return: 'hello world!', retcode: 0, success: true });
    expect((await ex.run({ fun: 'hello._secret', arg: [], jid: '2' })).return).toBe("'hello._secret' is not available.");
  });

  it('records unavailable modules with their reasons', async () => {
    const plugins = await loader({ moduleDirs: [fixture('module_dirs')] }).load();
    // Built-ins unavailable with these grains (pkg off Debian) are left out: this is about module_dirs.
    const fromDirs = [...plugins.registry.unavailable()].filter(([m]) => !allBuiltinModules().includes(m));
    expect(new Map(fromDirs)).toEqual(
      new Map([
        ['winonly', 'winonly needs Windows'],
        ['silent', undefined],
      ]),
    );
    const ex = new Executor(plugins);
    expect(await ex.run({ fun: 'winonly.run', arg: [], jid: '1' })).toEqual({
      return: "'winonly' __virtual__ returned False: winonly needs Windows",
      retcode: 1,
      success: false,
      out: 'nested',
    });
    expect((await ex.run({ fun: 'silent.run', arg: [], jid: '1' })).return).toBe("'silent' __virtual__ returned False");
    const onWindows = await loader({ moduleDirs: [fixture('module_dirs')], grains: { kernel: 'Windows' } }).load();
    expect(onWindows.registry.moduleNames()).toContain('winonly');
  });

  it('reports broken modules while the others load', async () => {
    const { registry } = await loader({ moduleDirs: [fixture('broken_dir'), fixture('no-such-dir')] }).load();
    expect(registry.moduleNames()).toEqual([...builtinModules({ kernel: 'Linux' }, ['saltutil']), 'fine'].sort());
    const byOrigin = Object.fromEntries(registry.problems.map((p) => [p.origin.split('/').pop(), p]));
    expect(byOrigin['a-broken.js'].error.message).toBe('boom while loading');
    expect(byOrigin['b-needs-unknown.js'].module).toBe('pkg');
    expect(byOrigin['b-needs-unknown.js'].error.message).toContain('depends on unknown service IPackages');
    expect(byOrigin['d-nothing.js'].error.message).toContain('exports no @Module');
    expect(byOrigin['no-such-dir'].error.message).toContain('is not a directory');
  });

  it('lets a custom module override a built-in of the same name', async () => {
    const plugins = await loader({ moduleDirs: [fixture('override_dir')] }).load();
    expect(plugins.registry.overrides).toEqual([
      { module: 'test', replaced: 'builtin', by: fixture('override_dir', 'test.js'), kind: 'execution' },
    ]);
    const ex = new Executor(plugins);
    expect((await ex.run({ fun: 'test.ping', arg: [], jid: '1' })).return).toBe('custom pong');
    expect((await ex.run({ fun: 'test.echo', arg: ['x'], jid: '1' })).return).toBe("'test.echo' is not available.");
  });

  it('loads a TypeScript module_dirs file through the typescript package', async () => {
    const plugins = await loader({ moduleDirs: [fixture('ts_dir')] }).load();
    expect(plugins.registry.problems.filter((p) => p.module !== 'saltutil')).toEqual([]);
    expect((await new Executor(plugins).run({ fun: 'typed.twice', arg: [21], jid: '1' })).return).toBe(42);
  });

  it('loads npm plugin packages by name pattern, each with its own copy of brine/plugin', async () => {
    const plugins = await new PluginLoader({
      config: new StaticConfig({ id: 'web1' }),
      logger: quiet,
      builtins: [],
      moduleDirs: [],
      npm: { nodeModules: [fixture('packages')], packages: ['not-installed'] },
      host: undefined,
    }).load();
    expect(plugins.registry.moduleNames()).toEqual(['demo']);
    expect(plugins.registry.module('demo')?.origin).toBe('npm:brine-plugin-demo');
    expect(plugins.grains.get('demo_grain')).toBe('from-npm');
    // The package resolves brine/plugin from its own node_modules (the built dist/ of this
    // repository, a second copy beside the TypeScript sources the test runs): ids still match.
    const helper = require(fixture('packages', 'brine-plugin-demo', 'lib', 'helper.js')) as { api: typeof hostApi };
    expect(helper.api).not.toBe(hostApi);
    expect(helper.api.IShell).toBe(hostApi.IShell);
    expect((await new Executor(plugins).run({ fun: 'demo.hi', arg: ['bob'], jid: '1' })).return).toBe('HI BOB (FROM-NPM)');
    const problems = Object.fromEntries(plugins.registry.problems.map((p) => [p.origin, p.error.message]));
    expect(problems['npm:brine-plugin-noentry']).toContain('names no plugin entry');
    expect(problems['npm:not-installed']).toContain('is not installed');
  });

  it('owns its container: two loads do not share registrations', async () => {
    const a = await createHarness({ grains: { a: 1 } });
    const b = await createHarness({ grains: { b: 2 } });
    expect(a.plugins.container).not.toBe(b.plugins.container);
    expect((await a.call('grains.get', ['a'])).return).toBe(1);
    expect((await b.call('grains.get', ['a'])).return).toBe('');
  });
});

describe('PluginLoader with lazy built-ins', () => {
  /** BUILTIN_PLUGINS as lazy entries (as plugins/manifest.ts gives them in the compiled tree), counting loads. */
  function lazyLoader(opts: { moduleDirs?: string[]; grains?: Record<string, unknown> } = {}) {
    const loaded: string[] = [];
    const lazyBuiltins = BUILTIN_PLUGINS.filter((cls) => readModule(cls) !== undefined).map((cls) => {
      const { kind, name } = readModule(cls)!;
      return {
        kind,
        name,
        load: () => {
          loaded.push(`${kind}:${name}:${(cls as { name: string }).name}`);
          return cls;
        },
      };
    });
    const settled: unknown[] = [];
    const l = new PluginLoader({
      config: new StaticConfig({ id: 'web1' }),
      grains: new MemoryGrains(opts.grains ?? { kernel: 'Linux' }),
      logger: quiet,
      builtins: BUILTIN_PLUGINS.filter((cls) => readModule(cls) === undefined),
      lazyBuiltins,
      moduleDirs: opts.moduleDirs ?? [],
    });
    return { loader: l, loaded, settled };
  }

  it('loads a module only when it is first asked for, in the order of its sources', async () => {
    const { loader: l, loaded } = lazyLoader({ grains: { kernel: 'Linux', os_family: 'Debian' } });
    const plugins = await l.load();
    expect(loaded).toEqual([]);
    expect(plugins.registry.find('test.ping')?.fn.name).toBe('ping');
    expect(loaded).toEqual(['execution:test:TestModule']);
    // Every module named pkg loads, in order, before the name is answered (here apt's is the available one).
    expect(plugins.registry.module('pkg')?.descriptor.cls).toBe(PkgModule);
    expect(loaded.slice(1)).toEqual(['execution:pkg:PkgModule', 'execution:pkg:DnfPkgModule', 'execution:pkg:ApkPkgModule']);
    expect((await new Executor(plugins).run({ fun: 'test.echo', arg: ['x'], jid: '1' })).return).toBe('x');
  });

  it('answers as an eager load does: names, functions, unavailable modules, problems', async () => {
    const eager = await loader().load();
    const { loader: l, loaded } = lazyLoader();
    const lazy = await l.load();
    expect(lazy.registry.moduleNames()).toEqual(eager.registry.moduleNames());
    expect(lazy.registry.functionNames()).toEqual(eager.registry.functionNames());
    expect(lazy.registry.moduleNames('state')).toEqual(eager.registry.moduleNames('state'));
    expect(new Map(lazy.registry.unavailable())).toEqual(new Map(eager.registry.unavailable()));
    lazy.registry.settleAll();
    expect(lazy.registry.problems.map((p) => p.module)).toEqual(eager.registry.problems.map((p) => p.module));
    expect(new Set(loaded).size).toBe(loaded.length);
  });

  it('lets a module_dirs module override a built-in it has not loaded yet', async () => {
    const { loader: l } = lazyLoader({ moduleDirs: [fixture('override_dir')] });
    const plugins = await l.load();
    expect(plugins.registry.overrides).toEqual([
      { module: 'test', replaced: 'builtin', by: fixture('override_dir', 'test.js'), kind: 'execution' },
    ]);
    expect((await new Executor(plugins).run({ fun: 'test.ping', arg: [], jid: '1' })).return).toBe('custom pong');
  });

  it('tells onSettled what a deferred load found unavailable or broken', async () => {
    const { loader: l } = lazyLoader({ grains: { kernel: 'Linux', os_family: 'Plan9' } });
    const plugins = await l.load();
    const reports: [string[], [string, string | undefined][]][] = [];
    plugins.registry.onSettled = (problems, unavailable) =>
      reports.push([problems.map((p) => String(p.module)), unavailable.map(([n, r]) => [n, r])]);
    expect(plugins.registry.module('pkg')).toBeUndefined();
    expect(plugins.registry.module('saltutil')).toBeUndefined();
    expect(reports).toEqual([
      [[], [['pkg', expect.any(String)]]],
      [['saltutil'], []],
    ]);
  });
});
