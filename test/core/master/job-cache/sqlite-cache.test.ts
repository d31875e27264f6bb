import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openJobCache, SqliteJobCache } from '../../../../src/core/master/job-cache';
import { codeOf, jobCacheContract, ret } from './support/contract';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'brine-jobcache-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('SQLite job cache: the shared contract', () => {
  jobCacheContract(async () => openJobCache({ cachedir: dir }));
});

describe('SQLite job cache specifics', () => {
  it('answers synchronously, in WAL mode with synchronous=NORMAL by default', () => {
    const cache = new SqliteJobCache(join(dir, 'c.sqlite3'));
    expect(cache.saveReturn(ret('20261202131309576618', 'web1'))).toBe(true);
    expect(Object.keys(cache.getReturns('20261202131309576618'))).toEqual(['web1']);
    cache.close();
    const db = new Database(join(dir, 'c.sqlite3'), { readonly: true });
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    db.close();
  });

  it('lives in <cachedir>/job-cache.sqlite3 and survives reopening', async () => {
    const a = await openJobCache({ cachedir: join(dir, 'nested', 'cache'), master_job_cache: 'local_cache' });
    await a.saveReturn(ret('20261202131309576618', 'web1'));
    await a.close();
    const b = await openJobCache({ cachedir: join(dir, 'nested', 'cache'), master_job_cache: 'sqlite' });
    expect(Object.keys(await b.getReturns('20261202131309576618'))).toEqual(['web1']);
    await b.close();
  });

  it('a second process-like handle (salt-run) reads what the master wrote while it is open', () => {
    const master = new SqliteJobCache(join(dir, 'c.sqlite3'));
    const reader = new SqliteJobCache(join(dir, 'c.sqlite3'));
    master.saveReturn(ret('20261202131309576618', 'web1'));
    expect(Object.keys(reader.getReturns('20261202131309576618'))).toEqual(['web1']);
    reader.close();
    master.close();
  });

  it('a cache file from before the metadata column gets it, and keeps its jobs', () => {
    const path = join(dir, 'old.sqlite3');
    const old = new Database(path);
    old.exec(`CREATE TABLE brine_jobs (jid TEXT PRIMARY KEY, tgt TEXT NOT NULL, tgt_type TEXT NOT NULL, fun TEXT NOT NULL,
      arg TEXT NOT NULL, user TEXT NOT NULL, minions TEXT NOT NULL, started_ms INTEGER NOT NULL)`);
    old
      .prepare('INSERT INTO brine_jobs VALUES (?, ?, ?, ?, ?, ?, ?, ?)')
      .run('20261202131309576618', '"*"', 'glob', '"test.ping"', '[]', 'root', '[]', 1);
    old.close();
    const cache = new SqliteJobCache(path);
    expect(cache.getJob('20261202131309576618')?.fun).toBe('test.ping');
    cache.saveJob({ ...cache.getJob('20261202131309576618')!, jid: '20261202131309576619', metadata: { a: 1 } });
    expect(cache.getJob('20261202131309576619')?.metadata).toEqual({ a: 1 });
    cache.close();
    // Opening again finds the column there.
    new SqliteJobCache(path).close();
  });

  it('takes synchronous: full, and refuses other values', async () => {
    const cache = new SqliteJobCache(join(dir, 'f.sqlite3'), { synchronous: 'full' });
    expect(cache.saveReturn(ret('20261202131309576618', 'web1'))).toBe(true);
    cache.close();
    expect(await codeOf(() => new SqliteJobCache(join(dir, 'g.sqlite3'), { synchronous: 'off' as 'full' }))).toBe('BAD_JOB_CACHE_OPTION');
  });

  it('an unusable path is a JOB_CACHE_IO error', async () => {
    // A regular file where the cachedir should be (not /proc: Node's recursive mkdir spins there).
    writeFileSync(join(dir, 'plain-file'), '');
    expect(await codeOf(() => new SqliteJobCache(join(dir, 'plain-file', 'c.sqlite3')))).toBe('JOB_CACHE_IO');
  });

  it('a corrupted stored value is a typed error, not a crash', async () => {
    const cache = new SqliteJobCache(join(dir, 'c.sqlite3'));
    cache.saveReturn(ret('20261202131309576618', 'web1'));
    const db = new Database(join(dir, 'c.sqlite3'));
    db.prepare("UPDATE brine_returns SET ret = '{not json'").run();
    db.close();
    expect(await codeOf(() => cache.getReturns('20261202131309576618'))).toBe('BAD_JOB_CACHE_VALUE');
    cache.close();
  });
});
