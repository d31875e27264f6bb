/**
 * The embedded job cache: one SQLite file, written synchronously with prepared statements.
 *
 * Durability: WAL journal with `synchronous=NORMAL` by default. A commit in WAL mode is a write()
 * of the transaction's pages into the -wal file before better-sqlite3 returns, so once saveReturn
 * has returned, a master killed with -9 loses nothing (the OS holds the pages and SQLite replays
 * the WAL on the next open). What NORMAL gives up is the last commits on power loss or kernel
 * crash, because the WAL is fsynced only at checkpoints. `FULL` fsyncs on every commit, which costs
 * one disk flush per return (hundreds per second on ordinary disks instead of tens of thousands).
 * Salt's own local_cache never fsyncs either, so NORMAL keeps Salt's guarantee and the brief's
 * (nothing acknowledged is lost when the process dies); `synchronous: 'full'` is there for hosts
 * that must survive power loss, or use `saveReturns` to pay one flush per batch.
 */
import { JobCacheError } from './errors';
import { chmodSync, closeSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import type Database from 'better-sqlite3';
import { BrineError } from '../../errors';
import { filterBounds, jobFromRow, jobRow, matchesPatterns, returnRow, returnsFromRows, type ReturnRow } from './rows';
import { SQLITE_ADDED_COLUMNS, SQLITE_SCHEMA } from './schema';
import type { JobCache, JobFilter, JobInput, JobRecord, ReturnInput, StoredReturn } from './types';

export type SqliteSynchronous = 'normal' | 'full';

export interface SqliteJobCacheOptions {
  /** Default 'normal' (see the file comment). */
  synchronous?: SqliteSynchronous;
  /** How long a writer waits for another process's write lock, in ms (default 5000). */
  busyTimeoutMs?: number;
}

function ioError(action: string, path: string, err: unknown): BrineError {
  return new JobCacheError('JOB_CACHE_IO', `job cache ${path}: ${action} failed: ${(err as Error).message}`, {
    cause: err,
    hint: 'check that the master cachedir is writable and not on a full disk',
  });
}

export class SqliteJobCache implements JobCache {
  readonly backend = 'sqlite' as const;
  private readonly db: Database.Database;
  private readonly insertJob: Database.Statement;
  private readonly insertReturn: Database.Statement;
  private readonly selectJob: Database.Statement;
  private readonly selectReturns: Database.Statement;
  private readonly selectJobs: Database.Statement;
  private readonly insertMany: (rows: ReturnRow[]) => boolean[];
  private readonly cleanTx: (cutoff: number) => number;

  constructor(
    readonly path: string,
    opts: SqliteJobCacheOptions = {},
  ) {
    const synchronous = opts.synchronous ?? 'normal';
    if (synchronous !== 'normal' && synchronous !== 'full') {
      throw new JobCacheError('BAD_JOB_CACHE_OPTION', `synchronous must be 'normal' or 'full', not ${JSON.stringify(synchronous)}`);
    }
    try {
      if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
      // Every return is in here: 0600, and SQLite gives the -wal and -shm files the same mode.
      if (path !== ':memory:') restrictFiles([path, `${path}-wal`, `${path}-shm`]);
      // The native addon is loaded when a cache is opened, not by every command that imports this module.
      const SqliteDatabase = require('better-sqlite3') as typeof Database;
      this.db = new SqliteDatabase(path, { timeout: opts.busyTimeoutMs ?? 5000 });
      this.db.pragma('journal_mode = WAL');
      this.db.pragma(`synchronous = ${synchronous.toUpperCase()}`);
      this.db.exec(SQLITE_SCHEMA);
      addMissingColumns(this.db);
    } catch (err) {
      throw ioError('open', path, err);
    }
    this.insertJob = this.db.prepare(
      `INSERT INTO brine_jobs (jid, tgt, tgt_type, fun, arg, user, minions, started_ms, metadata)
       VALUES (@jid, @tgt, @tgt_type, @fun, @arg, @user, @minions, @started_ms, @metadata)
       ON CONFLICT (jid) DO UPDATE SET tgt = excluded.tgt, tgt_type = excluded.tgt_type, fun = excluded.fun,
         arg = excluded.arg, user = excluded.user, minions = excluded.minions, started_ms = excluded.started_ms,
         metadata = excluded.metadata`,
    );
    this.insertReturn = this.db.prepare(
      `INSERT INTO brine_returns (jid, id, fun, fun_args, ret, retcode, success, out, at_ms)
       VALUES (@jid, @id, @fun, @fun_args, @ret, @retcode, @success, @out, @at_ms)
       ON CONFLICT (jid, id) DO NOTHING`,
    );
    this.selectJob = this.db.prepare('SELECT * FROM brine_jobs WHERE jid = ?');
    this.selectReturns = this.db.prepare('SELECT * FROM brine_returns WHERE jid = ? ORDER BY at_ms, rowid');
    this.selectJobs = this.db.prepare('SELECT * FROM brine_jobs WHERE started_ms >= ? AND started_ms <= ? ORDER BY jid');
    this.insertMany = this.db.transaction((rows: ReturnRow[]) => rows.map((r) => this.runInsertReturn(r)));
    const deleteJobReturns = this.db.prepare('DELETE FROM brine_returns WHERE jid IN (SELECT jid FROM brine_jobs WHERE started_ms < ?)');
    const deleteJobs = this.db.prepare('DELETE FROM brine_jobs WHERE started_ms < ?');
    const orphanFilter = 'FROM brine_returns AS r WHERE at_ms < ? AND NOT EXISTS (SELECT 1 FROM brine_jobs j WHERE j.jid = r.jid)';
    const countOrphanJids = this.db.prepare(`SELECT COUNT(DISTINCT jid) AS n ${orphanFilter}`);
    const deleteOrphans = this.db.prepare(`DELETE ${orphanFilter}`);
    this.cleanTx = this.db.transaction((cutoff: number) => {
      deleteJobReturns.run(cutoff);
      const jobs = deleteJobs.run(cutoff).changes;
      const orphans = (countOrphanJids.get(cutoff) as { n: number }).n;
      deleteOrphans.run(cutoff);
      return jobs + orphans;
    });
  }

  private runInsertReturn(row: ReturnRow): boolean {
    return this.insertReturn.run({ ...row, success: row.success ? 1 : 0 }).changes === 1;
  }

  private guard<T>(action: string, fn: () => T): T {
    if (!this.db.open) throw new JobCacheError('JOB_CACHE_CLOSED', `job cache ${this.path} is closed (${action})`);
    try {
      return fn();
    } catch (err) {
      if (err instanceof BrineError) throw err;
      throw ioError(action, this.path, err);
    }
  }

  saveJob(job: JobInput): void {
    const row = jobRow(job);
    this.guard('saving a job', () => this.insertJob.run(row));
  }

  saveReturn(ret: ReturnInput): boolean {
    const row = returnRow(ret);
    return this.guard('saving a return', () => this.runInsertReturn(row));
  }

  saveReturns(rets: readonly ReturnInput[]): boolean[] {
    if (!Array.isArray(rets)) throw new JobCacheError('BAD_RETURN', 'saveReturns needs a list of returns');
    // Check every return first, so that a bad one stores none.
    const rows = rets.map(returnRow);
    return this.guard('saving returns', () => this.insertMany(rows));
  }

  getJob(jid: string): JobRecord | undefined {
    const row = this.guard('reading a job', () => this.selectJob.get(String(jid)) as Record<string, unknown> | undefined);
    return row === undefined ? undefined : jobFromRow(row);
  }

  getReturns(jid: string): Record<string, StoredReturn> {
    return returnsFromRows(this.guard('reading returns', () => this.selectReturns.all(String(jid)) as Array<Record<string, unknown>>));
  }

  listJobs(filter: JobFilter = {}): JobRecord[] {
    const { from, to } = filterBounds(filter);
    const rows = this.guard('listing jobs', () => this.selectJobs.all(from, to) as Array<Record<string, unknown>>);
    return rows.map(jobFromRow).filter((job) => matchesPatterns(job, filter));
  }

  clean(olderThan: Date): number {
    if (!(olderThan instanceof Date) || !Number.isFinite(olderThan.getTime())) {
      throw new JobCacheError('BAD_JOB_FILTER', 'clean needs a valid Date');
    }
    return this.guard('cleaning', () => this.cleanTx(olderThan.getTime()));
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}

/**
 * Brings a cache file made by an older brine up to the schema: the columns added since. The check
 * and the ALTER run under the write lock (an IMMEDIATE transaction), so two processes opening the
 * same old file at once (master and salt-run) add each column once.
 */
function addMissingColumns(db: Database.Database): void {
  const missing = () =>
    SQLITE_ADDED_COLUMNS.filter(
      ({ table, column }) => !(db.pragma(`table_info(${table})`) as Array<{ name: string }>).some((c) => c.name === column),
    );
  if (missing().length === 0) return;
  db.transaction(() => {
    for (const { table, column, type } of missing()) db.exec(`ALTER TABLE ${table} ADD COLUMN ${column} ${type}`);
  }).immediate();
}

/** Creates `files[0]` if missing, and makes each existing one 0600. */
function restrictFiles(files: string[]): void {
  closeSync(openSync(files[0], 'a', 0o600));
  for (const f of files) {
    try {
      chmodSync(f, 0o600);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
  }
}
