/**
 * The master functions salt-run and salt-api share: built-in runners, the manage and cache
 * runner plugins, and a third party's @Runner/@Wheel from the master's module_dirs, over a real
 * key store and minion data cache and in-memory jobs.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MasterConfig } from '../../src/core/config';
import type { JobRunner, LocalJob } from '../../src/core/client/local-jobs';
import { KeyStore } from '../../src/core/master/key-store';
import { MasterFunctions } from '../../src/runners/master-functions';
import { compareVersions } from '../../plugins/manage';
import { readExchange } from '../support/api-exchanges';

const KEYS = resolve(__dirname, '../../..', 'shared/salt-wire/keys');
const SRV = resolve(__dirname, '../../..', 'shared/salt-api/srv-files');
const pub = (name: string) => readFileSync(join(KEYS, `${name}.pub`), 'utf8').trim();

const dir = mkdtempSync(join(tmpdir(), 'brine-master-fns-'));
const published: LocalJob[] = [];
/** web1 answers everything; db1 is accepted but never answers. */
const jobs: JobRunner = {
  async run(job) {
    published.push(job);
    const value = job.fun === 'test.version' ? '3007.10' : job.fun === 'sys.doc' ? { 'test.ping': 'ping doc' } : true;
    const web1Targeted = job.tgt === '*' || job.tgt === 'web1';
    return { jid: '20261203000000000001', returns: web1Targeted ? [{ id: 'web1', return: value, retcode: 0 }] : [] };
  },
  async runAsync() {
    return null;
  },
  async *runBatch() {},
};

function masterConfig(moduleDirs: string[]): MasterConfig {
  return {
    pki_dir: join(dir, 'pki'),
    cachedir: join(dir, 'cache'),
    sock_dir: join(dir, 'sock'),
    module_dirs: moduleDirs,
    plugin_dirs: [],
    user: 'root',
    timeout: 5,
    gather_job_timeout: 10,
    nodegroups: {},
    publish_port: 4505,
    master_job_cache: 'local_cache',
    flavour: 'brine-test',
    file_roots: { base: [join(SRV, 'states')] },
    pillar_roots: { base: [join(SRV, 'pillar')], scratch: [join(dir, 'scratch')] },
  } as unknown as MasterConfig;
}

let plain: MasterFunctions;
let extended: MasterFunctions;
const warnings: string[] = [];
const logger = {
  debug: () => undefined,
  info: () => undefined,
  warning: (m: string) => warnings.push(m),
  error: (m: string) => warnings.push(m),
};

beforeAll(async () => {
  const keys = new KeyStore({ pkiDir: join(dir, 'pki') });
  keys.ensureLayout();
  for (const id of ['web1', 'db1']) {
    keys.registerPending(id, pub(id));
    keys.accept([id]);
  }
  mkdirSync(join(dir, 'cache', 'minions', 'web1'), { recursive: true });
  writeFileSync(
    join(dir, 'cache', 'minions', 'web1', 'data.json'),
    JSON.stringify({ grains: { os: 'Debian', id: 'web1' }, pillar: { role: 'web' } }),
  );
  plain = await MasterFunctions.load({ master: masterConfig([]), keys, jobs, logger });
  extended = await MasterFunctions.load({ master: masterConfig([join(__dirname, 'fixtures', 'master_dirs')]), keys, jobs, logger });
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

const run = (fns: MasterFunctions, fun: string, args: unknown[] = [], kwargs: Record<string, unknown> = {}) => {
  const f = fns.runners.get(fun);
  if (!f) throw new Error(`${fun} missing`);
  return f.call(args, kwargs, { user: 'root' });
};

describe('master functions', () => {
  it('manage.* (a @Runner plugin) splits the matched minions by who answered', async () => {
    expect(await run(plain, 'manage.status')).toEqual({ up: ['web1'], down: ['db1'] });
    expect(await run(plain, 'manage.down')).toEqual(['db1']);
    expect(await run(plain, 'manage.up', [], { tgt: 'db*' })).toEqual([]);
    expect(await run(plain, 'manage.down', [], { tgt: 'db*' })).toEqual(['db1']);
    expect(await run(plain, 'manage.versions')).toEqual({ 'Up to date': { web1: '3007.10' }, Master: '3007.10' });
  });

  it("wheel key.list takes salt-key's status names, and answers {} for any other name (own keys only)", async () => {
    const keyList = (match: string) => plain.wheels.get('key.list')!.call([], { match }, { user: 'root' });
    expect(await keyList('acc')).toEqual({ minions: ['db1', 'web1'] });
    expect(await keyList('un')).toEqual({ minions_pre: [] });
    for (const bad of ['constructor', 'toString', '__proto__', 'nope']) expect(await keyList(bad)).toEqual({});
  });

  it("compares versions as Salt's release order", () => {
    expect(compareVersions('3007.9', '3007.10')).toBe(-1);
    expect(compareVersions('3008.1', '3007.10')).toBe(1);
    expect(compareVersions('3007.10', '3007.10')).toBe(0);
  });

  it('cache.grains and cache.pillar answer from the minion data cache, by target', async () => {
    expect(await run(plain, 'cache.grains')).toEqual({ db1: {}, web1: { os: 'Debian', id: 'web1' } });
    expect(await run(plain, 'cache.pillar', ['web1'])).toEqual({ web1: { role: 'web' } });
  });

  it('doc.runner lists built-in and plugin runners with their docstrings; doc.execution is sys.doc of the minions', async () => {
    const docs = (await run(plain, 'doc.runner')) as Record<string, string>;
    expect(Object.keys(docs)).toEqual(expect.arrayContaining(['cache.grains', 'doc.execution', 'jobs.list_jobs', 'manage.versions']));
    expect(docs['manage.up']).toContain('salt-run manage.up');
    expect(Object.keys((await run(plain, 'doc.wheel')) as object)).toEqual(expect.arrayContaining(['key.list_all', 'config.values']));
    expect(await run(plain, 'doc.execution')).toEqual({ 'test.ping': 'ping doc' });
    expect(published.at(-1)).toMatchObject({ tgt: '*', fun: 'sys.doc' });
  });

  it("loads a third party's @Runner and @Wheel from the master's module_dirs, with IMaster and IConfig", async () => {
    expect(await run(extended, 'inventory.count', ['test.version'])).toEqual({
      answered: ['web1'],
      accepted: ['db1', 'web1'],
      os: 'Debian',
    });
    expect(published.at(-1)).toMatchObject({ tgt: '*', fun: 'test.version' });
    expect(await extended.wheels.get('notes.show')?.call([], { key: 'flavour' }, { user: 'root' })).toEqual({ flavour: 'brine-test' });
    expect(((await run(extended, 'doc.runner')) as Record<string, string>)['inventory.count']).toContain('Count the minions');
    // A plugin module of a built-in name replaces it.
    expect(await run(extended, 'manage.up')).toEqual(['from-plugin']);
    expect(plain.runners.has('inventory.count')).toBe(false);
  });

  it("state.orchestrate_show_sls answers the master minion's high data as Salt's (corpus S06)", async () => {
    const captured = JSON.parse(readExchange('saltgui/S06-runner-state-orchestrate-show-sls').responseBody) as {
      return: Array<Record<string, unknown>>;
    };
    const expected = { [`${hostname()}_master`]: captured.return[0].vm_master };
    expect(await run(plain, 'state.orchestrate_show_sls', ['*'])).toEqual(expected);
    expect(JSON.stringify(await run(plain, 'state.orchestrate_show_sls', ['*']))).toBe(JSON.stringify(expected));
    expect(await run(plain, 'state.orchestrate_show_sls', ['nope'])).toEqual({
      [`${hostname()}_master`]: ["No matching sls found for 'nope' in env 'base'"],
    });
  });

  it("wheel pillar_roots.* finds, lists, reads and writes the pillar_roots files as Salt's", async () => {
    const wheel = (fun: string, kwargs: Record<string, unknown>) => plain.wheels.get(fun)!.call([], kwargs, { user: 'root' });
    const base = join(SRV, 'pillar');
    expect(await wheel('pillar_roots.find', { path: 'top.sls' })).toEqual([{ [join(base, 'top.sls')]: 'txt' }]);
    expect(await wheel('pillar_roots.find', { path: 'top.sls', saltenv: 'nope' })).toEqual([]);
    expect(await wheel('pillar_roots.list_env', {})).toEqual({ [base]: { 'common.sls': 'f', 'top.sls': 'f' } });
    expect(await wheel('pillar_roots.read', { path: 'common.sls' })).toEqual([
      { [join(base, 'common.sls')]: readFileSync(join(base, 'common.sls'), 'utf8') },
    ]);
    expect(await wheel('pillar_roots.write', { data: 'k: v\n', path: 'sub/new.sls', saltenv: 'scratch' })).toBe(
      `Wrote data to file ${join(dir, 'scratch', 'sub', 'new.sls')}`,
    );
    expect(await wheel('pillar_roots.list_roots', {})).toEqual({
      base: [{ [base]: { 'common.sls': 'f', 'top.sls': 'f' } }],
      scratch: [{ [join(dir, 'scratch')]: { sub: { 'new.sls': 'f' } } }],
    });
    expect(await wheel('pillar_roots.write', { data: 'x', path: '../escape.sls', saltenv: 'scratch' })).toBe('Invalid path');
    expect(await wheel('pillar_roots.write', { data: 'x', path: '/etc/x', saltenv: 'scratch' })).toMatch(/is not relative/);
    expect(await wheel('pillar_roots.write', { data: 'x', path: 'a.sls', saltenv: 'nope' })).toBe('Named environment nope is not present');
    expect(existsSync(join(dir, 'escape.sls'))).toBe(false);
  });

  it("answers a bad call with Salt's wording", async () => {
    await expect(run(plain, 'pillar.show_pillar', ['web1', 'extra'])).rejects.toThrow(/takes/);
    await expect(run(extended, 'inventory.count', ['a', 'b'])).rejects.toThrow(/takes/);
  });
});

/** pillar.show_pillar / show_top over pillar_roots whose top files use targets, grains and two environments. */
describe('pillar runner', () => {
  let fns: MasterFunctions;
  const roots = join(dir, 'pillar-runner');
  const file = (rel: string, text: string) => {
    mkdirSync(join(roots, rel, '..'), { recursive: true });
    writeFileSync(join(roots, rel), text);
  };

  beforeAll(async () => {
    file(
      'base/top.sls',
      [
        'base:',
        "  '*':",
        '    - common',
        "  'web*':",
        '    - web',
        "  'G@os:Debian':",
        '    - debian',
        "{% if grains.get('os') == 'Debian' %}",
        "  'debian-host':",
        '    - debian',
        '{% endif %}',
        "{% if grains.get('broken') %}{{ no_such_function() }}{% endif %}",
        '',
      ].join('\n'),
    );
    file('base/common.sls', 'site: brine\nfqdn_seen: \'{{ grains.get("fqdn", "none") }}\'\n');
    file('base/web.sls', 'role: web\n');
    file('base/debian.sls', 'family: {{ grains["os"] }}\n');
    file('dev/top.sls', "dev:\n  '*':\n    - devonly\n");
    file('dev/devonly.sls', 'site: dev\n');
    mkdirSync(join(dir, 'cache', 'minions', 'bad1'), { recursive: true });
    writeFileSync(join(dir, 'cache', 'minions', 'bad1', 'data.json'), JSON.stringify({ grains: { id: 'bad1', broken: true } }));
    const keys = new KeyStore({ pkiDir: join(dir, 'pki') });
    const master = { ...masterConfig([]), pillar_roots: { base: [join(roots, 'base')], dev: [join(roots, 'dev')] } } as MasterConfig;
    fns = await MasterFunctions.load({ master, keys, jobs, logger });
  });

  it("show_pillar compiles a minion's pillar with its cached grains, without touching the cache", async () => {
    // web1's cached grains say Debian; base's targets match it, then dev's.
    expect(await run(fns, 'pillar.show_pillar', ['web1'])).toEqual({ site: 'dev', fqdn_seen: 'none', role: 'web', family: 'Debian' });
    expect(await run(fns, 'pillar.show_pillar', ['web1'], { pillarenv: 'base' })).toEqual({
      site: 'brine',
      fqdn_seen: 'none',
      role: 'web',
      family: 'Debian',
    });
    expect(await run(fns, 'cache.pillar', ['web1'])).toEqual({ web1: { role: 'web' } });
  });

  it('show_pillar with no minion (`*`) or an unknown one compiles with the id as fqdn; other keywords are grains', async () => {
    expect(await run(fns, 'pillar.show_pillar', [], { pillarenv: 'base' })).toEqual({ site: 'brine', fqdn_seen: '*' });
    expect(await run(fns, 'pillar.show_pillar', ['db1'], { pillarenv: 'base', os: 'Debian' })).toEqual({
      site: 'brine',
      fqdn_seen: 'db1',
      family: 'Debian',
    });
    expect(await run(fns, 'pillar.show_pillar', ['web9'], { pillarenv: 'dev' })).toEqual({ site: 'dev' });
  });

  it("show_top answers every environment's top unmatched, or the render errors", async () => {
    const top = {
      base: { '*': ['common'], 'web*': ['web'], 'G@os:Debian': ['debian'] },
      dev: { '*': ['devonly'] },
    };
    expect(await run(fns, 'pillar.show_top', ['db1'])).toEqual(top);
    // No minion: the grains of the first accepted minion the master cached (web1, a Debian).
    const withDebian = { ...top, base: { ...top.base, 'debian-host': ['debian'] } };
    expect(await run(fns, 'pillar.show_top')).toEqual(withDebian);
    expect(JSON.stringify(await run(fns, 'pillar.show_top', ['web1']))).toBe(JSON.stringify(withDebian));
    const errors = (await run(fns, 'pillar.show_top', ['bad1'])) as string[];
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/^Rendering Primary Top file failed, render error:/);
  });
});
