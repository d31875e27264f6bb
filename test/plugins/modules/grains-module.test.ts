import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import YAML from 'yaml';
import { createHarness } from 'brine/testing';
import { BUILTIN_PLUGINS } from '../../../plugins';
import { Executor } from '../../../src/plugins/executor';
import { PluginLoader } from '../../../src/plugins/loader/loader';
import { StaticConfig } from '../../../src/plugins/services/config';
import { StreamLogger } from '../../../src/plugins/services/logger';
import { tempDirs } from '../../support/temp-dirs';

const tempDir = tempDirs('brine-grains-');

const GRAINS = { os: 'Debian', os_family: 'Debian', pkg: { apache: 'httpd' }, ipv4: ['127.0.0.1', '192.0.2.2'], empty: '' };

describe('grains module', () => {
  it('items, item, get, ls, has_value', async () => {
    const h = await createHarness({ grains: GRAINS });
    expect((await h.call('grains.items')).return).toEqual(GRAINS);
    expect((await h.call('grains.item', ['os', 'pkg:apache', 'nope'])).return).toEqual({ os: 'Debian', 'pkg:apache': 'httpd', nope: '' });
    expect((await h.call('grains.get', ['pkg:apache'])).return).toBe('httpd');
    expect((await h.call('grains.get', ['ipv4:1'])).return).toBe('192.0.2.2');
    expect((await h.call('grains.get', ['nope'])).return).toBe('');
    expect((await h.call('grains.get', ['nope'], { default: 'dflt' })).return).toBe('dflt');
    expect((await h.call('grains.get', ['pkg/apache'], { delimiter: '/' })).return).toBe('httpd');
    expect((await h.call('grains.ls')).return).toEqual(['empty', 'ipv4', 'os', 'os_family', 'pkg']);
    expect((await h.call('grains.has_value', ['pkg:apache'])).return).toBe(true);
    expect((await h.call('grains.has_value', ['empty'])).return).toBe(true);
    expect((await h.call('grains.has_value', ['pkg:nginx'])).return).toBe(false);
  });

  it('get never walks into the prototype chain (a: [{b: 1}], a:constructor)', async () => {
    const h = await createHarness({ grains: { a: [{ b: 1 }] } });
    for (const path of ['a:constructor', 'a:toString', 'a:__proto__', 'constructor']) {
      const res = await h.call('grains.get', [path], { default: 'dflt' });
      expect([path, res.retcode ?? 0, res.return]).toEqual([path, 0, 'dflt']);
    }
    expect((await h.call('grains.get', ['a:b'])).return).toBe(1);
  });

  it('setval/setvals/delval write the grains file next to the config and update grains', async () => {
    const dir = tempDir();
    const plugins = await new PluginLoader({
      config: new StaticConfig({ id: 'web1', conf_file: join(dir, 'minion'), grains: { role: 'db' } }),
      logger: new StreamLogger('error', () => undefined),
      builtins: BUILTIN_PLUGINS.filter((p) => (p as { name: string }).name !== 'CoreGrains'),
      moduleDirs: [],
    }).load();
    const ex = new Executor(plugins);
    const run = (fun: string, arg: unknown[]) => ex.run({ fun, arg, jid: '1' });
    expect((await run('grains.setval', ['color', 'blue'])).return).toEqual({ color: 'blue' });
    expect((await run('grains.setvals', [{ a: 1, b: [1, 2] }])).return).toEqual({ a: 1, b: [1, 2] });
    expect(YAML.parse(readFileSync(join(dir, 'grains'), 'utf8'))).toEqual({ color: 'blue', a: 1, b: [1, 2] });
    expect((await run('grains.get', ['color'])).return).toBe('blue');
    expect((await run('grains.delval', ['a'])).return).toEqual({ comment: '', changes: { a: null }, result: true });
    expect(YAML.parse(readFileSync(join(dir, 'grains'), 'utf8'))).toMatchObject({ a: null });
    await run('grains.delval', ['a', { __kwarg__: true, destructive: true }]);
    expect(YAML.parse(readFileSync(join(dir, 'grains'), 'utf8'))).toEqual({ color: 'blue', b: [1, 2] });
    expect((await run('grains.has_value', ['a'])).return).toBe(false);
    // config grains win over the file after a refresh
    await plugins.refreshGrains();
    expect(plugins.grains.get('role')).toBe('db');
    expect(plugins.grains.get('color')).toBe('blue');
    expect((await run('grains.setvals', ['notadict'])).return).toBe(
      "ERROR executing 'grains.setvals': setvals grains must be a dictionary.",
    );
  });

  it("set works on nested keys as Salt's does, persists into the grains file, and delval/delkey go through it", async () => {
    const dir = tempDir();
    const plugins = await new PluginLoader({
      config: new StaticConfig({ id: 'web1', conf_file: join(dir, 'minion') }),
      logger: new StreamLogger('error', () => undefined),
      builtins: BUILTIN_PLUGINS.filter((p) => !['CoreGrains', 'SystemGrains'].includes((p as { name: string }).name)),
      moduleDirs: [],
    }).load();
    const ex = new Executor(plugins);
    const run = async (fun: string, arg: unknown[], kwargs: Record<string, unknown> = {}) =>
      (await ex.run({ fun, arg: Object.keys(kwargs).length ? [...arg, { __kwarg__: true, ...kwargs }] : arg, jid: '1' })).return;
    const file = (): unknown => YAML.parse(readFileSync(join(dir, 'grains'), 'utf8'));
    const ok = (changes: unknown) => ({ comment: '', changes, result: true });
    const refused = (comment: string) => ({ comment, changes: {}, result: false });

    expect(await run('grains.set', ['apps:myApp:port', 2209])).toEqual(ok({ apps: { myApp: { port: 2209 } } }));
    expect(file()).toEqual({ apps: { myApp: { port: 2209 } } });
    expect(await run('grains.set', ['apps:myApp:port', 2209])).toEqual({ comment: 'Grain is already set', changes: {}, result: true });
    expect(await run('grains.set', ['apps:myApp', { port: 1 }])).toEqual(
      refused("The key 'apps:myApp' exists but is a dict or a list. Use 'force=True' to overwrite."),
    );
    expect(await run('grains.set', ['apps:myApp', { port: 1 }], { force: true })).toEqual(ok({ apps: { myApp: { port: 1 } } }));
    expect(await run('grains.set', ['color', 'blue'])).toEqual(ok({ color: 'blue' }));
    expect(await run('grains.set', ['color', ['a']])).toEqual(
      refused("The key 'color' exists and the given value is a dict or a list. Use 'force=True' to overwrite."),
    );
    expect(await run('grains.set', ['color:shade', 'dark'])).toEqual(
      refused("The key 'color' value is 'blue', which is different from the provided key 'shade'. Use 'force=True' to overwrite."),
    );
    // A list parent: an item equal to the key becomes {key: val}; a dict item holding the key is updated.
    await run('grains.setval', ['roles', ['web', { db: 1 }]]);
    expect(await run('grains.set', ['roles:web', 'yes'])).toEqual(ok({ roles: [{ web: 'yes' }, { db: 1 }] }));
    expect(await run('grains.set', ['roles:db', 2])).toEqual(ok({ roles: [{ web: 'yes' }, { db: 2 }] }));
    expect(await run('grains.set', ['roles:new', 3])).toEqual(ok({ roles: [{ web: 'yes' }, { db: 2 }, { new: 3 }] }));
    // A nested key removed with val=None and destructive=True.
    expect(await run('grains.set', ['apps:myApp:port', null], { destructive: true })).toEqual(ok({ apps: { myApp: {} } }));
    // delval sets None, delkey removes; a dict grain needs force.
    expect(await run('grains.delval', ['color'])).toEqual(ok({ color: null }));
    expect(file()).toMatchObject({ color: null });
    expect(await run('grains.delkey', ['color'])).toEqual(ok({ color: null }));
    expect(await run('grains.delkey', ['apps'])).toEqual(
      refused("The key 'apps' exists but is a dict or a list. Use 'force=True' to overwrite."),
    );
    expect(await run('grains.delkey', ['apps'], { force: true })).toEqual(ok({ apps: null }));
    expect(file()).toEqual({ roles: [{ web: 'yes' }, { db: 2 }, { new: 3 }] });
    expect(await run('grains.get', ['roles:db'])).toBe(2);
  });
});
