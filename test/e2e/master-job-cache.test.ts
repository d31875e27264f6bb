/**
 * `master_job_cache: <returner>` on the real binaries (issue 13): a third-party returner in the
 * master's module_dirs keeps every job in files under the test root, and salt-run's jobs.*
 * read them back through it; then the error cases (an unknown name, a returner lacking
 * functions). Each step waits for a process exit or a log line, never a clock.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appendFileSync, existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Cluster } from '../support/cluster';
import { SQLITE_FILE } from '../../src/core/master/job-cache';

/**
 * A returner as a third party writes one for Salt's master job cache: one folder per jid under
 * `filecache.dir`, the load in `load.json`, each minion's return in `<id>.json`; every call is
 * appended to `calls.log`.
 */
const FILECACHE = `const { Returner, Fn, arg, inject, IConfig, jidToTime } = require('brine/plugin');
const fs = require('node:fs');
const path = require('node:path');
class FileCache {
  constructor(config) {
    this.dir = config.get('filecache.dir');
  }
  note(fn) {
    fs.mkdirSync(this.dir, { recursive: true });
    fs.appendFileSync(path.join(this.dir, 'calls.log'), fn + '\\n');
  }
  jobDir(jid) {
    return path.join(this.dir, String(jid));
  }
  read(file, dflt) {
    return fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, 'utf8')) : dflt;
  }
  prep_jid({ passed_jid }) {
    this.note('prep_jid');
    fs.mkdirSync(this.jobDir(passed_jid), { recursive: true });
    return passed_jid;
  }
  save_load({ jid, load, minions }) {
    this.note('save_load');
    fs.mkdirSync(this.jobDir(jid), { recursive: true });
    fs.writeFileSync(path.join(this.jobDir(jid), 'load.json'), JSON.stringify({ ...load, Minions: minions || [] }));
  }
  returner({ ret }) {
    this.note('returner');
    fs.writeFileSync(path.join(this.jobDir(ret.jid), ret.id + '.json'), JSON.stringify(ret));
  }
  get_load({ jid }) {
    this.note('get_load');
    return this.read(path.join(this.jobDir(jid), 'load.json'), {});
  }
  get_jid({ jid }) {
    this.note('get_jid');
    const out = {};
    if (!fs.existsSync(this.jobDir(jid))) return out;
    for (const f of fs.readdirSync(this.jobDir(jid))) {
      if (f === 'load.json') continue;
      const ret = this.read(path.join(this.jobDir(jid), f));
      out[ret.id] = { return: ret.return, retcode: ret.retcode, success: ret.success };
    }
    return out;
  }
  get_jids() {
    this.note('get_jids');
    const out = {};
    for (const jid of fs.readdirSync(this.dir)) {
      const load = this.read(path.join(this.jobDir(jid), 'load.json'));
      if (!load) continue;
      out[jid] = { Function: load.fun, Arguments: load.arg, Target: load.tgt, 'Target-type': load.tgt_type, User: load.user, StartTime: jidToTime(jid) };
    }
    return out;
  }
}
inject(IConfig)(FileCache, undefined, 0);
Fn({ args: { nocache: arg.boolean({ optional: true }), passed_jid: arg.string({ optional: true }) } })(FileCache.prototype, 'prep_jid');
Fn({ args: { jid: arg.string(), load: arg.dict(), minions: arg.list({ optional: true }) } })(FileCache.prototype, 'save_load');
Fn({ args: { ret: arg.dict() } })(FileCache.prototype, 'returner');
Fn({ args: { jid: arg.string() } })(FileCache.prototype, 'get_load');
Fn({ args: { jid: arg.string() } })(FileCache.prototype, 'get_jid');
Fn({ args: {} })(FileCache.prototype, 'get_jids');
Returner('filecache')(FileCache);
module.exports = { FileCache };
`;

/** A returner that has prep_jid and returner only: enough to publish, not to keep or read jobs. */
const HALFCACHE = `const { Returner, Fn, arg } = require('brine/plugin');
class HalfCache {
  prep_jid({ passed_jid }) {
    return passed_jid;
  }
  returner() {}
}
Fn({ args: { nocache: arg.boolean({ optional: true }), passed_jid: arg.string({ optional: true }) } })(HalfCache.prototype, 'prep_jid');
Fn({ args: { ret: arg.dict() } })(HalfCache.prototype, 'returner');
Returner('halfcache')(HalfCache);
module.exports = { HalfCache };
`;

function jidOf(text: string): string {
  const m = /(\d{20})/.exec(text);
  if (!m) throw new Error(`no jid in: ${text}`);
  return m[1];
}

let cluster: Cluster;
let jobs: string;
let masterConf: string;

beforeAll(async () => {
  cluster = await Cluster.create();
  const modules = join(cluster.root, 'returners');
  jobs = join(cluster.root, 'jobs');
  mkdirSync(modules, { recursive: true });
  writeFileSync(join(modules, 'filecache.js'), FILECACHE);
  writeFileSync(join(modules, 'halfcache.js'), HALFCACHE);
  masterConf = join(cluster.masterDir, 'master');
  appendFileSync(masterConf, `module_dirs:\n  - ${modules}\nfilecache.dir: ${jobs}\nmaster_job_cache: filecache\n`);
  await cluster.startMaster();
  await cluster.startAccepted([{ id: 'jc1' }, { id: 'jc2' }]);
}, 90_000);

afterAll(async () => {
  await cluster?.stop();
});

/** The master config with master_job_cache set to `name`. */
function setJobCache(name: string): void {
  const text = readFileSync(masterConf, 'utf8').replace(/^master_job_cache: .*$/m, `master_job_cache: ${name}`);
  writeFileSync(masterConf, text);
}

describe('master_job_cache: a returner from module_dirs', () => {
  let jid: string;

  beforeAll(async () => {
    const res = await cluster.salt('*', 'test.ping', '--show-jid');
    expect(res.code).toBe(0);
    jid = jidOf(res.stdout);
  }, 60_000);

  it('the master keeps the job through the returner: prep_jid, save_load, then returner per minion', () => {
    expect(JSON.parse(readFileSync(join(jobs, jid, 'load.json'), 'utf8'))).toMatchObject({
      jid,
      tgt: '*',
      tgt_type: 'glob',
      fun: 'test.ping',
      arg: [],
      Minions: ['jc1', 'jc2'],
    });
    expect(readdirSync(join(jobs, jid)).sort()).toEqual(['jc1.json', 'jc2.json', 'load.json']);
    expect(JSON.parse(readFileSync(join(jobs, jid, 'jc1.json'), 'utf8'))).toMatchObject({ id: 'jc1', jid, fun: 'test.ping', return: true });
    const calls = readFileSync(join(jobs, 'calls.log'), 'utf8').trim().split('\n');
    expect(calls.slice(0, 4)).toEqual(['prep_jid', 'save_load', 'returner', 'returner']);
    // Nothing went to the built-in cache.
    const cachedir = join(cluster.root, 'master', 'var', 'cache', 'salt', 'master');
    expect(existsSync(cachedir)).toBe(true);
    expect(existsSync(join(cachedir, SQLITE_FILE))).toBe(false);
  });

  it('salt-run jobs.lookup_jid reads the returns through get_jid', async () => {
    const res = await cluster.run('salt-run', ['jobs.lookup_jid', jid]);
    expect(res.stderr).toBe('');
    expect(res.stdout).toBe('jc1:\n    True\njc2:\n    True\n');
    expect(res.code).toBe(0);
  }, 30_000);

  it('salt-run jobs.list_jobs reads the jobs through get_jids', async () => {
    const res = await cluster.run('salt-run', ['jobs.list_jobs', '--out', 'json']);
    expect(res.code).toBe(0);
    const listed = JSON.parse(res.stdout) as Record<string, Record<string, unknown>>;
    expect(listed[jid]).toMatchObject({ Function: 'test.ping', Arguments: [], Target: '*', 'Target-type': 'glob', User: 'root' });
    expect(listed[jid].StartTime).toMatch(/^\d{4}, [A-Z][a-z]{2} \d{2} \d{2}:\d{2}:\d{2}\.\d{6}$/);
  }, 30_000);

  it('salt-run jobs.list_job reads the load and the returns through get_load and get_jid', async () => {
    const res = await cluster.run('salt-run', ['jobs.list_job', jid, '--out', 'json']);
    expect(res.code).toBe(0);
    expect(JSON.parse(res.stdout)).toMatchObject({
      jid,
      Function: 'test.ping',
      Target: '*',
      Minions: ['jc1', 'jc2'],
      Result: { jc1: { return: true }, jc2: { return: true } },
    });
  }, 30_000);
});

describe('master_job_cache errors', () => {
  it('an unknown name: salt-run and the master each fail with one line naming the option and the choices', async () => {
    setJobCache('nosuch');
    try {
      const run = await cluster.run('salt-run', ['jobs.list_jobs']);
      expect(run.code).not.toBe(0);
      const line =
        'master_job_cache: "nosuch" is neither a job cache brine has nor a returner; use one of: ' +
        'local_cache, sqlite, postgres, pgjsonb, filecache, halfcache, syslog';
      expect(run.stderr).toBe(`ERROR: ${line}\n`);
      // The running master holds the ports and the pid file: stopped, a new one meets the option.
      await cluster.master!.stop();
      const master = await cluster.run('salt-master', ['-l', 'warning']);
      expect(master.code).not.toBe(0);
      expect(master.stderr).toBe(`ERROR: ${line}\n`);
    } finally {
      setJobCache('filecache');
    }
  }, 60_000);

  it("a returner without save_load or get_*: Salt's error line in the master log, one line from salt-run", async () => {
    setJobCache('halfcache');
    try {
      const master = await cluster.restartMaster();
      await cluster.minions.get('jc1')!.waitFor(/publisher is back[\s\S]*Authentication with master successful/, 30_000);
      const res = await cluster.salt('jc1', 'test.ping');
      expect(res.stdout).toBe('jc1:\n    True\n');
      await master.waitFor('The specified returner used for the master job cache "halfcache" does not have a save_load function!');
      const run = await cluster.run('salt-run', ['jobs.list_jobs']);
      expect(run.stderr).toBe("ERROR: Returner 'halfcache' does not support function get_jids\n");
      expect(run.code).not.toBe(0);
    } finally {
      setJobCache('filecache');
    }
  }, 90_000);
});
