/**
 * openMasterJobCache: which job cache `master_job_cache` gives (a built-in one, or a returner
 * from module_dirs), and the one-line error for a name that is neither.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILTIN_RETURNERS } from '../../plugins';
import { openMasterJobCache } from '../../src/plugins/master-returners';
import { StreamLogger } from '../../src/plugins/services/logger';

let root: string;
let modules: string;
const logged: string[] = [];
const logger = new StreamLogger('warning', (line) => logged.push(line));

/** `memo`: prep_jid and save_load only, writing what it gets to `memo.file`. */
const MEMO = `const { Returner, Fn, arg, inject, IConfig } = require('brine/plugin');
const { appendFileSync } = require('node:fs');
class Memo {
  constructor(config) { this.file = config.get('memo.file'); }
  prep_jid({ passed_jid }) { return passed_jid; }
  save_load({ jid, load }) { appendFileSync(this.file, JSON.stringify({ jid, load }) + '\\n'); }
}
inject(IConfig)(Memo, undefined, 0);
Fn({ args: { nocache: arg.boolean({ optional: true }), passed_jid: arg.string({ optional: true }) } })(Memo.prototype, 'prep_jid');
Fn({ args: { jid: arg.string(), load: arg.dict() } })(Memo.prototype, 'save_load');
Returner('memo')(Memo);
module.exports = { Memo };
`;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'brine-master-returners-'));
  modules = join(root, 'modules');
  mkdirSync(modules);
  writeFileSync(join(modules, 'memo.js'), MEMO);
  writeFileSync(join(modules, 'broken.js'), "throw new Error('broken.js exploded while loading');\n");
});

afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

function config(name: string): Record<string, unknown> {
  return { cachedir: join(root, 'cache'), module_dirs: [modules], master_job_cache: name, 'memo.file': join(root, 'memo.jsonl') };
}

describe('openMasterJobCache', () => {
  it('a built-in name opens the built-in cache, loading no plugin', async () => {
    mkdirSync(join(root, 'cache'), { recursive: true });
    const cache = await openMasterJobCache({ config: config('local_cache'), logger, builtins: BUILTIN_RETURNERS });
    try {
      expect(cache.backend).toBe('sqlite');
    } finally {
      await cache.close();
    }
    // broken.js was never loaded: no warning about it.
    expect(logged.filter((l) => l.includes('broken'))).toEqual([]);
  });

  it("a returner's name gives a cache that calls that returner", async () => {
    const cache = await openMasterJobCache({ config: config('memo'), logger, builtins: BUILTIN_RETURNERS });
    try {
      expect(cache.backend).toBe('returner');
      const jid = '20261204050102123456';
      await cache.saveJob({
        jid,
        tgt: 'web*',
        tgt_type: 'glob',
        fun: 'test.ping',
        arg: [],
        user: 'root',
        minions: ['web1'],
        started: new Date(),
      });
      expect(JSON.parse(readFileSync(join(root, 'memo.jsonl'), 'utf8'))).toEqual({
        jid,
        load: { jid, tgt: 'web*', tgt_type: 'glob', fun: 'test.ping', arg: [], user: 'root' },
      });
      // memo has no get_jids: salt-run's jobs.list_jobs gets this line.
      await expect(cache.listJobs()).rejects.toThrow(/^Returner 'memo' does not support function get_jids$/);
    } finally {
      await cache.close();
    }
  });

  it('an unknown name is one ConfigError naming the option and every choice', async () => {
    await expect(openMasterJobCache({ config: config('redis'), logger, builtins: BUILTIN_RETURNERS })).rejects.toMatchObject({
      code: 'UNKNOWN_JOB_CACHE',
      message:
        'master_job_cache: "redis" is neither a job cache brine has nor a returner; use one of: local_cache, sqlite, postgres, pgjsonb, memo, syslog',
    });
  });

  it('a returner that failed to load says why', async () => {
    await expect(openMasterJobCache({ config: config('broken'), logger, builtins: BUILTIN_RETURNERS })).rejects.toThrow(
      /^master_job_cache: "broken" is neither a job cache brine has nor a returner \(.*broken\.js exploded while loading\); use one of: /,
    );
  });
});
