import { describe, expect, it } from 'vitest';
import { createHarness } from 'brine/testing';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { builtinModules, fixture } from '../fixtures';
import { BUILTIN_MASTER_PLUGINS } from '../../../plugins';

const SHARED = join(__dirname, '../../../../shared');

describe('sys module', () => {
  it('renders argspecs from the schema as Salt prints them', async () => {
    const h = await createHarness();
    const specs = (await h.call('sys.argspec', ['test.[aerf]*'])).return;
    // python3: salt.utils.args.argspec_report on Salt's test module for the same functions
    expect(specs).toEqual({
      'test.arg': { args: null, defaults: null, varargs: true, kwargs: true },
      'test.arg_repr': { args: null, defaults: null, varargs: true, kwargs: true },
      'test.arg_type': { args: null, defaults: null, varargs: true, kwargs: true },
      'test.echo': { args: ['text'], defaults: null, varargs: null, kwargs: null },
      'test.exception': { args: ['message'], defaults: ['Test Exception'], varargs: null, kwargs: null },
      'test.false': { args: null, defaults: null, varargs: null, kwargs: null },
      'test.fib': { args: ['num'], defaults: null, varargs: null, kwargs: null },
      'test.rand_sleep': { args: ['max'], defaults: [60], varargs: null, kwargs: null },
      'test.random_hash': { args: ['size', 'hash_type'], defaults: [9999999999, null], varargs: null, kwargs: null },
      'test.retcode': { args: ['code'], defaults: [42], varargs: null, kwargs: null },
    });
  });

  it('answers a bad call with Salt texts before the function runs', async () => {
    const h = await createHarness();
    const doc = (await h.call('sys.doc', ['test.echo'])).return as Record<string, string>;
    expect((await h.call('test.echo')).return).toBe(
      `Passed invalid arguments to test.echo: echo() missing 1 required positional argument: 'text'\n${doc['test.echo']}`,
    );
    expect(await h.call('test.sleep', ['soon'])).toEqual({
      return: "ERROR executing 'test.sleep': length must be an integer, got 'soon'",
      retcode: 1,
      success: false,
      out: 'nested',
    });
    expect((await h.call('test.echo', ['a'], { bogus: 1 })).return).toBe(
      "ERROR executing 'test.echo': The following keyword arguments are not valid: bogus=1",
    );
  });

  it('lists modules and functions as Salt does (globs, sys vs sysctl)', async () => {
    const h = await createHarness({ moduleDirs: [fixture('module_dirs')] });
    expect((await h.call('sys.list_modules')).return).toEqual([...builtinModules(), 'hello'].sort());
    // Globs are matched against function names; unavailable modules are left out.
    expect((await h.call('sys.list_modules', ['s*'])).return).toEqual(['saltutil', 'schedule', 'state', 'status', 'sys']);
    expect((await h.call('sys.list_modules', ['winonly'])).return).toEqual([]);
    expect((await h.call('sys.list_functions', ['sys'])).return).toEqual([
      'sys.argspec',
      'sys.doc',
      'sys.list_functions',
      'sys.list_modules',
      'sys.list_returner_functions',
      'sys.list_returners',
      'sys.list_runner_functions',
      'sys.list_runners',
      'sys.list_state_functions',
      'sys.list_state_modules',
      'sys.missing_modules',
      'sys.reload_modules',
      'sys.returner_argspec',
      'sys.returner_doc',
      'sys.runner_argspec',
      'sys.runner_doc',
      'sys.state_argspec',
      'sys.state_doc',
    ]);
    expect((await h.call('sys.list_functions', ['sys.list_*', 'hello'])).return).toEqual([
      'hello.greet',
      'hello.shout',
      'sys.list_functions',
      'sys.list_modules',
      'sys.list_returner_functions',
      'sys.list_returners',
      'sys.list_runner_functions',
      'sys.list_runners',
      'sys.list_state_functions',
      'sys.list_state_modules',
    ]);
    expect((await h.call('sys.list_functions')).return).toContain('test.ping');
  });

  it('returns docs in Salt shape {fun: doc}', async () => {
    const h = await createHarness();
    const docs = (await h.call('sys.doc', ['test.ping'])).return as Record<string, string>;
    expect(Object.keys(docs)).toEqual(['test.ping']);
    // Exactly what a Salt 3007 minion answered to SaltGUI's sys.doc (../shared/salt-api capture S46).
    const capture = readFileSync(join(SHARED, 'salt-api/exchanges/saltgui/S46-doc-sys-doc.txt'), 'utf8');
    const salt = JSON.parse(capture.slice(capture.lastIndexOf('\n{"return"') + 1)) as { return: [Record<string, Record<string, string>>] };
    expect(docs['test.ping']).toBe(salt.return[0].web1['test.ping']);
    expect(Object.keys((await h.call('sys.doc', ['grains.[gi]*'])).return as object)).toEqual([
      'grains.get',
      'grains.item',
      'grains.items',
    ]);
    const all = (await h.call('sys.doc', ['sys'])).return as Record<string, string>;
    expect(Object.keys(all)).toContain('sys.doc');
  });

  it('lists state modules and runners and gives their docs as Salt does', async () => {
    const h = await createHarness({ listedOnly: BUILTIN_MASTER_PLUGINS });
    const states = (await h.call('sys.list_state_modules')).return as string[];
    expect(states).toEqual(expect.arrayContaining(['cmd', 'file', 'test']));
    expect(states).toEqual([...states].sort());
    expect((await h.call('sys.list_state_modules', ['test', 'cmd.r*', 'nope'])).return).toEqual(['cmd', 'test']);
    // state_doc: each function's doc, and its module's own doc under the module name (None without one).
    const stateDocs = (await h.call('sys.state_doc', ['test.nop', 'file.absent'])).return as Record<string, unknown>;
    expect(Object.keys(stateDocs).sort()).toEqual(['file', 'file.absent', 'test', 'test.nop']);
    expect(stateDocs['test.nop']).toMatch(/\S/);
    expect(Object.keys((await h.call('sys.state_doc', ['test.succeed_*'])).return as object).sort()).toEqual([
      'test',
      'test.succeed_with_changes',
      'test.succeed_with_comment',
      'test.succeed_without_changes',
    ]);
    // The master's runner plugins are listed (not run) on the minion.
    const runners = (await h.call('sys.list_runners')).return as string[];
    expect(runners).toEqual(expect.arrayContaining(['cache', 'manage']));
    expect((await h.call('sys.list_runners', ['m*', 'cache'])).return).toEqual(['cache', 'manage']);
    const runnerDocs = (await h.call('sys.runner_doc', ['manage'])).return as Record<string, string>;
    expect(Object.keys(runnerDocs)).toEqual(expect.arrayContaining(['manage.up', 'manage.down', 'manage.status']));
    expect(Object.keys(runnerDocs).every((f) => f.startsWith('manage.'))).toBe(true);
    expect(runnerDocs['manage.up']).toMatch(/salt-run manage.up/);
    expect(Object.keys((await h.call('sys.runner_doc', ['manage.up'])).return as object)).toEqual(['manage.up']);
    // Listing them put nothing among the problems, and a plain harness has no runners at all.
    const plain = await createHarness();
    expect((await h.call('sys.missing_modules')).return).toEqual((await plain.call('sys.missing_modules')).return);
    expect((await plain.call('sys.list_runners')).return).toEqual([]);
  });

  it('lists returners, their functions, docs and argspecs as Salt does', async () => {
    const h = await createHarness();
    const call = async (fun: string, args: unknown[] = []) => (await h.call(fun, args)).return;
    expect(await call('sys.list_returners')).toEqual(expect.arrayContaining(['local_cache', 'pgjsonb', 'syslog']));
    expect(await call('sys.list_returners', ['s*', 'local_cache', 'nope'])).toEqual(['local_cache', 'syslog']);
    expect(await call('sys.list_returner_functions', ['syslog'])).toEqual(['syslog.returner']);
    expect(await call('sys.list_returner_functions', ['pgjsonb.get_*'])).toEqual([
      'pgjsonb.get_jid',
      'pgjsonb.get_load',
      'pgjsonb.get_minions',
    ]);
    const docs = (await call('sys.returner_doc', ['local_cache'])) as Record<string, string>;
    expect(Object.keys(docs).sort()).toEqual([
      'local_cache.get_jid',
      'local_cache.get_load',
      'local_cache.returner',
      'local_cache.save_load',
    ]);
    expect(docs['local_cache.returner']).toMatch(/job return/);
    expect(await call('sys.returner_argspec', ['syslog'])).toEqual({
      'syslog.returner': { args: ['ret'], defaults: null, varargs: null, kwargs: null },
    });
    // The state and runner twins.
    expect(await call('sys.list_state_functions', ['test.succeed_with_*'])).toEqual([
      'test.succeed_with_changes',
      'test.succeed_with_comment',
    ]);
    expect(Object.keys((await call('sys.state_argspec', ['test.nop'])) as object)).toEqual(['test.nop']);
    const r = await createHarness({ listedOnly: BUILTIN_MASTER_PLUGINS });
    expect((await r.call('sys.list_runner_functions', ['manage.up'])).return).toEqual(['manage.up']);
    expect(Object.keys((await r.call('sys.runner_argspec', ['manage'])).return as object)).toContain('manage.up');
  });

  it('returns argspecs in Salt shape with defaults, varargs and kwargs', async () => {
    const h = await createHarness();
    const res = (await h.call('sys.argspec', ['test.random_hash'])).return;
    expect(res).toEqual({ 'test.random_hash': { args: ['size', 'hash_type'], defaults: [9999999999, null], varargs: null, kwargs: null } });
    const arg = (await h.call('sys.argspec', ['test.arg'])).return;
    expect(arg).toEqual({ 'test.arg': { args: null, defaults: null, varargs: true, kwargs: true } });
    const run = (await h.call('sys.argspec', ['cmd.run'])).return;
    // Salt's shape: the options follow cmd in cmd.run's order, defaults (None when optional) for the last ones.
    const options = [
      'cwd',
      'stdin',
      'runas',
      'group',
      'shell',
      'python_shell',
      'env',
      'clean_env',
      'rstrip',
      'umask',
      'hide_output',
      'timeout',
    ];
    expect(run).toEqual({
      'cmd.run': {
        args: ['cmd', ...options, 'ignore_retcode', 'saltenv', 'prepend_path', 'success_retcodes'],
        defaults: [null, null, null, null, null, null, null, false, true, null, false, null, false, 'base', null, null],
        varargs: null,
        kwargs: true,
      },
    });
    expect(Object.keys((await h.call('sys.argspec', ['sys'])).return as object)).toHaveLength(18);
    expect((await h.call('sys.argspec')).return).toEqual({});
  });

  it('explains missing modules, and the executor names the __virtual__ reason', async () => {
    const h = await createHarness({ moduleDirs: [fixture('module_dirs'), fixture('broken_dir')] });
    const missing = (await h.call('sys.missing_modules')).return as Record<string, string>;
    expect(missing.winonly).toBe("'winonly' __virtual__ returned False: winonly needs Windows");
    expect(missing.silent).toBe("'silent' __virtual__ returned False");
    expect(missing.pkg).toMatch(/depends on unknown service IPackages/);
    // A file that throws before naming its module is listed under its file name, as Salt names modules.
    expect(missing['a-broken']).toMatch(/^failed to load from \/.*\/a-broken\.js: boom while loading$/);
    expect(await h.call('winonly.run')).toMatchObject({
      return: "'winonly' __virtual__ returned False: winonly needs Windows",
      retcode: 1,
    });
  });

  it('refuses names that are not strings', async () => {
    const h = await createHarness();
    const res = await h.call('sys.doc', [{ a: 1 }]);
    expect(res.retcode).toBe(1);
    expect(res.return).toMatch(/^ERROR executing 'sys.doc': module and function names must be strings/);
  });
});
