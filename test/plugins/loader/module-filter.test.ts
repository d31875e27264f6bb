/**
 * Salt's disable_modules, disable_states, disable_returners and whitelist_modules in the plugin
 * loader: a module kept out is not loaded (its functions "not available", as Salt's), whether
 * named by the file Salt defines it in (`cmdmod`) or by its own name; whitelist_modules by module
 * name, as Salt 3007's loader checks it. The lazy built-ins (a minion run from dist) are filtered
 * when first asked for: test/e2e/module-filter.test.ts runs a real minion.
 */
import { describe, expect, it } from 'vitest';
import { MemoryGrains } from 'brine/testing';
import { Module, Fn, Returner } from 'brine/plugin';
import { BUILTIN_PLUGINS } from '../../../plugins';
import { Executor } from '../../../src/plugins/executor';
import { PluginLoader } from '../../../src/plugins/loader/loader';
import { ModuleFilter } from '../../../src/plugins/loader/module-filter';
import { StaticConfig } from '../../../src/plugins/services/config';
import { StreamLogger } from '../../../src/plugins/services/logger';
import { ConfigError } from '../../../src/core/errors';

async function loaded(options: Record<string, unknown>, grains: Record<string, unknown> = { kernel: 'Linux', os_family: 'Debian' }) {
  const lines: string[] = [];
  const plugins = await new PluginLoader({
    config: new StaticConfig({ id: 'web1', ...options }),
    grains: new MemoryGrains(grains),
    logger: new StreamLogger('info', (line) => lines.push(line)),
    builtins: BUILTIN_PLUGINS,
    moduleDirs: [],
  }).load();
  return { plugins, lines, run: (fun: string, arg: unknown[] = []) => new Executor(plugins).run({ fun, arg, jid: '1' }) };
}

describe('module filters', () => {
  it("disable_modules turns a module off by Salt's file name for it, saying so in the log", async () => {
    const { plugins, lines, run } = await loaded({ disable_modules: ['cmdmod', 'aptpkg'] });
    expect(plugins.registry.moduleNames()).not.toContain('cmd');
    expect(plugins.registry.moduleNames()).not.toContain('pkg');
    expect(plugins.registry.moduleNames()).toContain('test');
    expect((await run('cmd.run', ['echo hi'])).return).toBe("'cmd.run' is not available.");
    expect(await run('test.ping')).toMatchObject({ return: true, retcode: 0 });
    expect(lines.join('\n')).toContain('Not loading the execution module cmd (class CmdModule): disable_modules names its file, cmdmod');
  });

  it('disable_modules also takes the module name, which Salt would pass over and leave running', async () => {
    const { plugins } = await loaded({ disable_modules: ['cmd'] });
    expect(plugins.registry.moduleNames()).not.toContain('cmd');
    // The cmd state module is another kind: disable_states turns that one off.
    expect(plugins.registry.moduleNames('state')).toContain('cmd');
  });

  it("a file name another system's backend uses leaves this one's module alone", async () => {
    const { plugins } = await loaded({ disable_modules: ['yumpkg'] });
    expect(plugins.registry.moduleNames()).toContain('pkg');
  });

  it('whitelist_modules loads only the execution modules it names, by name', async () => {
    const { plugins, run } = await loaded({ whitelist_modules: ['test', 'cmd'] });
    expect(plugins.registry.moduleNames()).toEqual(['cmd', 'test']);
    expect((await run('grains.items')).return).toBe("'grains.items' is not available.");
    expect((await run('cmd.run', ['echo hi'])).return).toBe('hi');
    // Other kinds are not execution modules: the state modules stay.
    expect(plugins.registry.moduleNames('state')).toContain('file');
  });

  it('disable_states and disable_returners turn off state modules and returners', async () => {
    const { plugins } = await loaded({ disable_states: ['pkg'], disable_returners: ['syslog_return'] });
    expect(plugins.registry.moduleNames('state')).not.toContain('pkg');
    expect(plugins.registry.moduleNames('state')).toContain('file');
    expect(plugins.registry.moduleNames('returner')).not.toContain('syslog');
    expect(plugins.registry.moduleNames('returner')).toContain('local_cache');
  });

  it("a plugin's own file name works as the built-ins' do", async () => {
    @Module('motd', { file: 'motd_linux' })
    class Motd {
      @Fn()
      show(): string {
        return 'hello';
      }
    }
    @Returner('ledger', { file: 'ledger_return' })
    class Ledger {
      @Fn()
      returner(): void {}
    }
    const filter = ModuleFilter.fromConfig(new StaticConfig({ disable_modules: ['motd_linux'], disable_returners: ['ledger'] }));
    expect(filter.refusal('execution', 'motd', 'motd_linux')).toBe('disable_modules names its file, motd_linux');
    expect(filter.refusal('returner', 'ledger', 'ledger_return')).toBe('disable_returners names it');
    expect(filter.refusal('execution', 'test', undefined)).toBeUndefined();
    expect([Motd, Ledger].map((c) => c.name)).toEqual(['Motd', 'Ledger']);
    expect(() => Module('bad', { file: 'not a word' })).toThrow("@Module file must be a word of letters, digits and '_'");
  });

  it('refuses a list that is not of names, naming the option', () => {
    expect(() => ModuleFilter.fromConfig(new StaticConfig({ disable_modules: [1] }))).toThrow(ConfigError);
    expect(() => ModuleFilter.fromConfig(new StaticConfig({ whitelist_modules: { cmd: true } }))).toThrow(
      'whitelist_modules must be a list of module names, got {"cmd":true}',
    );
  });
});
