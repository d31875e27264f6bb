import { mkdtempSync, readdirSync, readFileSync, rmSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { PROC_RECORD_DELAY_MS } from '../../../src/core/minion/proc-dir';
import { cacheJobReturn } from '../../../src/core/minion/cached-jobs';
import { createHarness } from 'brine/testing';
import type { MasterFiles } from '../../../src/plugins/services/extension-sync';

const dirs: string[] = [];
function tmp(): string {
  const d = mkdtempSync(join(tmpdir(), 'brine-saltutil-'));
  dirs.push(d);
  return d;
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A master's file roots in memory: saltenv -> path -> content. */
function fakeMaster(envs: Record<string, Record<string, string>>): MasterFiles & { fetched: string[] } {
  const fetched: string[] = [];
  return {
    fetched,
    async list(saltenv, prefix) {
      return Object.keys(envs[saltenv] ?? {})
        .filter((p) => p.startsWith(prefix))
        .sort();
    },
    async fetch(saltenv, path, dest) {
      const body = envs[saltenv]?.[path];
      if (body === undefined) return false;
      fetched.push(`${saltenv}:${path}`);
      mkdirSync(dirname(dest), { recursive: true });
      writeFileSync(dest, body);
      return true;
    },
  };
}

const GREETER_TS = `import { Module, Fn } from 'brine/plugin';
@Module('greeter')
export class Greeter {
  @Fn({ summary: "Greet. CLI: salt * greeter.hi bob" })
  hi(name: string): string { return 'hi ' + name; }
}
`;
const MOTD_STATE_TS = `import { StateModule, State, arg } from 'brine/plugin';
@StateModule('motd')
export class Motd {
  @State({ summary: 'Say it', args: { name: arg.string() } })
  said({ name }: { name: string }) { return { name, result: true, changes: {}, comment: 'said ' + name }; }
}
`;
const SITE_GRAINS_JS = `const { GrainsProvider } = require('brine/plugin');
class Site { collect() { return { site: 'paris' }; } }
GrainsProvider('site')(Site);
module.exports = { Site };
`;

describe('saltutil: running jobs', () => {
  it('running, find_job and kill_job see the other jobs in Salt shape', async () => {
    const h = await createHarness();
    const sleeping = h.call('test.sleep', [30]);
    const [job] = h.runtime.runningJobs();
    expect(job).toEqual({
      pid: process.pid,
      fun: 'test.sleep',
      arg: [30],
      tgt: 'minion',
      jid: job.jid,
      ret: '',
      tgt_type: 'glob',
      user: 'root',
    });
    expect((await h.call('saltutil.running')).return).toEqual([job]);
    expect((await h.call('saltutil.find_job', [job.jid])).return).toEqual(job);
    expect((await h.call('saltutil.find_job', ['20200101000000000000'])).return).toEqual({});
    expect((await h.call('saltutil.kill_job', [job.jid])).return).toBe(`Signal 9 sent to job ${job.jid} at pid ${process.pid}`);
    // test.sleep returns False when its job is aborted.
    expect((await sleeping).return).toBe(false);
    expect((await h.call('saltutil.running')).return).toEqual([]);
    expect((await h.call('saltutil.kill_job', [job.jid])).return).toBe('');
    expect((await h.call('saltutil.find_job', [{ bad: 1 }])).retcode).toBe(1);
  });
});

describe('saltutil: the proc records of running jobs', () => {
  // The delay before a job's record is written is timed with fake timers: no waiting on the clock.
  afterEach(() => vi.useRealTimers());
  const procFiles = (cachedir: string) => (existsSync(join(cachedir, 'proc')) ? readdirSync(join(cachedir, 'proc')) : []);

  it("keeps a job's result when its record cannot be removed, and says why", async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const cachedir = tmp();
    const lines: string[] = [];
    const h = await createHarness({ config: { cachedir }, log: (line: string) => lines.push(line) });
    const sleeping = h.call('test.sleep', [30]);
    const [job] = h.runtime.runningJobs();
    vi.advanceTimersByTime(PROC_RECORD_DELAY_MS);
    expect(readdirSync(join(cachedir, 'proc'))).toEqual([job.jid]);
    // The folder turns into a file behind the job's back: its record can no longer be unlinked.
    rmSync(join(cachedir, 'proc'), { recursive: true });
    writeFileSync(join(cachedir, 'proc'), 'not a folder');
    await h.call('saltutil.kill_job', [job.jid]);
    expect((await sleeping).return).toBe(false);
    expect(lines.join('\n')).toMatch(new RegExp(`Could not remove the record of job ${job.jid} from .*proc: ENOTDIR`));
  });

  it('records a job for the other processes once it has run PROC_RECORD_DELAY_MS, and a quick one never', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const cachedir = tmp();
    const h = await createHarness({ config: { cachedir } });
    expect((await h.call('test.ping')).return).toBe(true);
    expect(existsSync(join(cachedir, 'proc'))).toBe(false);

    const sleeping = h.call('test.sleep', [30]);
    const [job] = h.runtime.runningJobs();
    vi.advanceTimersByTime(PROC_RECORD_DELAY_MS - 1);
    expect(procFiles(cachedir)).toEqual([]);
    // saltutil.running in this process sees it all the same (it knows its own jobs).
    expect((await h.call('saltutil.running')).return).toEqual([expect.objectContaining({ jid: job.jid, fun: 'test.sleep' })]);
    vi.advanceTimersByTime(1);
    expect(procFiles(cachedir)).toEqual([job.jid]);
    await h.call('saltutil.kill_job', [job.jid]);
    await sleeping;
    expect(procFiles(cachedir)).toEqual([]);
  });

  it('records a state run before it starts (one state run at a time across processes reads it)', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const cachedir = tmp();
    const h = await createHarness({ config: { cachedir }, pillar: {} });
    const run = h.call('state.single', ['test.succeed_without_changes', 'x']);
    const [job] = h.runtime.runningJobs();
    expect(job.fun).toBe('state.single');
    expect(procFiles(cachedir)).toEqual([job.jid]);
    expect((await run).retcode).toBe(0);
    expect(procFiles(cachedir)).toEqual([]);
  });
});

describe('saltutil.find_cached_job', () => {
  it("returns what cache_jobs kept for a jid, and Salt's texts when there is none", async () => {
    const cachedir = tmp();
    const ret = { success: true, return: 'hi', retcode: 0, jid: '20261208010203040506', fun: 'test.echo', fun_args: ['hi'], user: 'root' };
    cacheJobReturn(cachedir, ret);
    const h = await createHarness({ config: { cachedir, cache_jobs: true } });
    expect((await h.call('saltutil.find_cached_job', [ret.jid])).return).toEqual(ret);
    expect((await h.call('saltutil.find_cached_job', ['20200101000000000000'])).return).toBe(
      `Local jobs cache directory ${join(cachedir, 'minion_jobs', '20200101000000000000')} not found`,
    );
    // A jid is one folder's name: a path is never followed out of the cache.
    expect((await h.call('saltutil.find_cached_job', ['../proc'])).return).toBe(
      `Local jobs cache directory ${join(cachedir, 'minion_jobs', '../proc')} not found`,
    );
    const off = await createHarness({ config: { cachedir } });
    expect((await off.call('saltutil.find_cached_job', ['20200101000000000000'])).return).toBe(
      'Local jobs cache directory not found; you may need to enable cache_jobs on this minion',
    );
  });
});

describe('saltutil: sync from the master', () => {
  it('syncs _modules (TypeScript transpiled) and reloads them', async () => {
    const cachedir = tmp();
    const master = fakeMaster({
      base: { '_modules/greeter.ts': GREETER_TS, '_modules/types.d.ts': 'x', '_modules/README': 'no', 'top.sls': '' },
    });
    const h = await createHarness({ config: { cachedir }, files: master });
    expect((await h.call('greeter.hi', ['bob'])).return).toBe("'greeter.hi' is not available.");
    expect(await h.call('saltutil.sync_modules')).toEqual({ return: ['modules.greeter'], retcode: 0, success: true });
    expect(master.fetched).toEqual(['base:_modules/greeter.ts']);
    expect(readFileSync(join(cachedir, 'extmods', 'modules', 'greeter.js'), 'utf8')).toContain('exports.Greeter');
    expect((await h.call('greeter.hi', ['bob'])).return).toBe('hi bob');
    // Nothing changed: nothing reported.
    expect((await h.call('saltutil.sync_modules')).return).toEqual([]);
  });

  it('sync_all syncs grains too, honours saltenv and the blacklist, and cleans removed files', async () => {
    const cachedir = tmp();
    const envs = {
      base: { '_modules/greeter.ts': GREETER_TS, '_grains/site.js': SITE_GRAINS_JS },
      dev: { '_modules/other.js': SITE_GRAINS_JS.replace(/site/g, 'other') },
    };
    const h = await createHarness({ config: { cachedir }, files: fakeMaster(envs) });
    expect((await h.call('saltutil.sync_all', [], { saltenv: 'base,dev', extmod_blacklist: { modules: ['other'] } })).return).toEqual({
      modules: ['modules.greeter'],
      states: [],
      grains: ['grains.site'],
    });
    expect(existsSync(join(cachedir, 'extmods', 'modules', 'other.js'))).toBe(false);
    expect(h.runtime.moduleDirs()).toEqual(['modules', 'states', 'grains'].map((form) => join(cachedir, 'extmods', form)));
    delete (envs.base as Record<string, string>)['_modules/greeter.ts'];
    expect((await h.call('saltutil.sync_modules')).return).toEqual([]);
    expect(existsSync(join(cachedir, 'extmods', 'modules', 'greeter.js'))).toBe(false);
    expect((await h.call('greeter.hi', ['x'])).return).toBe("'greeter.hi' is not available.");
  });

  it('sync_states fetches _states and the state modules load; clear_cache empties the cachedir', async () => {
    const cachedir = tmp();
    const h = await createHarness({ config: { cachedir }, files: fakeMaster({ base: { '_states/motd.ts': MOTD_STATE_TS } }) });
    expect((await h.call('sys.list_state_modules', ['motd'])).return).toEqual([]);
    expect((await h.call('saltutil.sync_states')).return).toEqual(['states.motd']);
    expect(h.runtime.moduleDirs()).toEqual([join(cachedir, 'extmods', 'states')]);
    expect((await h.call('sys.list_state_modules', ['motd'])).return).toEqual(['motd']);
    expect((await h.call('sys.state_doc', ['motd.said'])).return).toEqual({ motd: null, 'motd.said': expect.stringContaining('Say it') });

    // The jobs' own proc files made the directory already.
    mkdirSync(join(cachedir, 'proc'), { recursive: true });
    writeFileSync(join(cachedir, 'proc', '20240101000000000001'), 'x');
    expect((await h.call('saltutil.clear_cache')).return).toBe(true);
    // Files go, directories stay (Salt's walk removes files only).
    expect(existsSync(join(cachedir, 'extmods', 'states', 'motd.js'))).toBe(false);
    expect(existsSync(join(cachedir, 'files', 'base', '_states', 'motd.ts'))).toBe(false);
    expect(existsSync(join(cachedir, 'proc', '20240101000000000001'))).toBe(false);
    expect(existsSync(join(cachedir, 'proc'))).toBe(true);
    const none = await createHarness();
    expect((await none.call('saltutil.clear_cache')).return).toMatch(/^ERROR: The minion config gives no cachedir/);
  });

  it('says clearly when there is no master to sync from', async () => {
    const h = await createHarness({ config: { cachedir: tmp() } });
    const res = await h.call('saltutil.sync_modules');
    expect(res.retcode).toBe(1);
    expect(res.return).toMatch(/^ERROR: No master to sync from/);
  });

  it('refresh_grains and refresh_modules answer True', async () => {
    const h = await createHarness();
    expect(await h.call('saltutil.refresh_grains')).toEqual({ return: true, retcode: 0, success: true });
    expect((await h.call('saltutil.refresh_modules')).return).toBe(true);
    expect((await h.call('sys.reload_modules')).return).toBe(true);
  });
});
