/**
 * How many returns per second the job cache stores, for SQLite and PostgreSQL.
 *
 *   const rows = await runJobCacheBench();   // [{ name: 'job-cache sqlite saveReturn ...', opsPerSec }, ...]
 *
 * SQLite runs on a temporary file. PostgreSQL runs against `opts.postgres` when given, else a
 * throwaway server started here (pg-sandbox.ts); when none can be started the PostgreSQL rows are
 * left out and the reason goes to `opts.onSkip` (stderr by default).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startThrowawayPostgres, type ThrowawayPostgres } from './pg-sandbox';
import { ReturnBatcher } from '../src/core/master/job-cache/return-batcher';
import { PostgresJobCache, type PostgresOptions } from '../src/core/master/job-cache/postgres-cache';
import { SqliteJobCache } from '../src/core/master/job-cache/sqlite-cache';
import type { JobCache, ReturnInput } from '../src/core/master/job-cache/types';

export interface BenchRow {
  name: string;
  opsPerSec: number;
}

export interface JobCacheBenchOptions {
  /** How long each case runs, in ms (default 1000). */
  durationMs?: number;
  /** A server to use; 'skip' leaves PostgreSQL out. Default: a throwaway server. */
  postgres?: PostgresOptions | 'skip';
  onSkip?: (reason: string) => void;
}

const BATCH = 100;
const CONCURRENCY = 64;

/** A return shaped like a small test.ping / cmd.run answer. */
function makeReturn(jid: string, n: number): ReturnInput {
  return {
    jid,
    id: `minion-${n}`,
    fun: 'cmd.run',
    fun_args: ['uptime'],
    return: ` 13:13:09 up 1 day,  2:03,  0 users,  load average: 0.${n % 100}`,
    retcode: 0,
    success: true,
    at: new Date(),
  };
}

/** Runs `step` (which stores `perStep` returns) until the time is up; returns per second. */
async function measure(durationMs: number, perStep: number, step: (n: number) => unknown): Promise<number> {
  let n = 0;
  const start = process.hrtime.bigint();
  const budget = BigInt(durationMs) * 1_000_000n;
  let elapsed = 0n;
  while (elapsed < budget) {
    await step(n);
    n += perStep;
    elapsed = process.hrtime.bigint() - start;
  }
  return Math.round((n * 1e9) / Number(elapsed));
}

async function benchCache(
  label: string,
  cache: JobCache,
  durationMs: number,
  cases: Array<'one' | 'concurrent' | 'batch' | 'batcher'>,
): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  let jidSerial = 0;
  const freshJid = () => `2026120213130957${String(jidSerial++).padStart(4, '0')}`;
  for (const c of cases) {
    const jid = freshJid();
    await cache.saveJob({
      jid,
      tgt: '*',
      tgt_type: 'glob',
      fun: 'cmd.run',
      arg: ['uptime'],
      user: 'root',
      minions: [],
      started: new Date(),
    });
    if (c === 'one') {
      rows.push({
        name: `job-cache ${label} saveReturn (one commit each)`,
        opsPerSec: await measure(durationMs, 1, (n) => cache.saveReturn(makeReturn(jid, n))),
      });
    } else if (c === 'concurrent') {
      const ops = await measure(durationMs, CONCURRENCY, (n) =>
        Promise.all(Array.from({ length: CONCURRENCY }, (_, i) => cache.saveReturn(makeReturn(jid, n + i)))),
      );
      rows.push({ name: `job-cache ${label} saveReturn (${CONCURRENCY} in flight)`, opsPerSec: ops });
    } else if (c === 'batcher') {
      const batcher = new ReturnBatcher(cache);
      const ops = await measure(durationMs, CONCURRENCY, (n) =>
        Promise.all(Array.from({ length: CONCURRENCY }, (_, i) => batcher.save(makeReturn(jid, n + i)))),
      );
      rows.push({ name: `job-cache ${label} ReturnBatcher.save (${CONCURRENCY} in flight, one commit per loop turn)`, opsPerSec: ops });
    } else {
      const ops = await measure(durationMs, BATCH, (n) =>
        cache.saveReturns(Array.from({ length: BATCH }, (_, i) => makeReturn(jid, n + i))),
      );
      rows.push({ name: `job-cache ${label} saveReturns (batches of ${BATCH}, one commit each)`, opsPerSec: ops });
    }
  }
  return rows;
}

export async function runJobCacheBench(opts: JobCacheBenchOptions = {}): Promise<BenchRow[]> {
  const durationMs = opts.durationMs ?? 1000;
  const onSkip = opts.onSkip ?? ((reason: string) => process.stderr.write(`job-cache bench: PostgreSQL left out: ${reason}\n`));
  const rows: BenchRow[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'brine-jobcache-bench-'));
  try {
    for (const synchronous of ['normal', 'full'] as const) {
      const cache = new SqliteJobCache(join(dir, `${synchronous}.sqlite3`), { synchronous });
      try {
        rows.push(...(await benchCache(`sqlite synchronous=${synchronous.toUpperCase()}`, cache, durationMs, ['one', 'batcher', 'batch'])));
      } finally {
        cache.close();
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  if (opts.postgres === 'skip') return rows;
  let server: ThrowawayPostgres | undefined;
  let pgOptions = opts.postgres;
  if (pgOptions === undefined) {
    try {
      server = await startThrowawayPostgres();
      pgOptions = server.options;
    } catch (err) {
      onSkip((err as Error).message);
      return rows;
    }
  }
  try {
    const cache = await PostgresJobCache.open(pgOptions);
    try {
      rows.push(...(await benchCache('postgres', cache, durationMs, ['one', 'concurrent', 'batcher', 'batch'])));
    } finally {
      await cache.close();
    }
  } finally {
    await server?.stop();
  }
  return rows;
}
