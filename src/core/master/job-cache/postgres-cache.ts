/**
 * The shared job cache: the same schema and behaviour as the SQLite one, on a PostgreSQL server,
 * so that several masters can keep one job history. PostgreSQL's default synchronous_commit=on
 * makes a commit durable (WAL flushed) before the INSERT resolves, so an awaited saveReturn
 * survives the master, and the database host, losing power.
 */
import { JobCacheError } from './errors';
import type { PoolClient, QueryResultRow } from 'pg';
import { PostgresConnection, type PostgresOptions } from './postgres-connection';
import { filterBounds, jobFromRow, jobRow, matchesPatterns, returnRow, returnsFromRows, type ReturnRow } from './rows';
import { POSTGRES_SCHEMA, POSTGRES_SCHEMA_LOCK } from './schema';
import type { JobCache, JobFilter, JobInput, JobRecord, ReturnInput, StoredReturn } from './types';

export type { PostgresOptions } from './postgres-connection';

const RETURN_COLUMNS = ['jid', 'id', 'fun', 'fun_args', 'ret', 'retcode', 'success', 'out', 'at_ms'] as const;
/** PostgreSQL takes at most 65535 parameters in one statement. */
const ROWS_PER_INSERT = 1000;

function insertReturnsSql(count: number): string {
  const values: string[] = [];
  for (let r = 0; r < count; r++) {
    values.push(`(${RETURN_COLUMNS.map((_, c) => `$${r * RETURN_COLUMNS.length + c + 1}`).join(', ')})`);
  }
  return `INSERT INTO brine_returns (${RETURN_COLUMNS.join(', ')}) VALUES ${values.join(', ')}
          ON CONFLICT (jid, id) DO NOTHING RETURNING jid, id`;
}

const INSERT_ONE_RETURN = insertReturnsSql(1);
const INSERT_JOB = `INSERT INTO brine_jobs (jid, tgt, tgt_type, fun, arg, "user", minions, started_ms, metadata)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
  ON CONFLICT (jid) DO UPDATE SET tgt = excluded.tgt, tgt_type = excluded.tgt_type, fun = excluded.fun,
    arg = excluded.arg, "user" = excluded."user", minions = excluded.minions, started_ms = excluded.started_ms,
    metadata = excluded.metadata`;
const ORPHANS = 'FROM brine_returns AS r WHERE at_ms < $1 AND NOT EXISTS (SELECT 1 FROM brine_jobs j WHERE j.jid = r.jid)';

export class PostgresJobCache implements JobCache {
  readonly backend = 'postgres' as const;

  /** The pool, shared with the PostgreSQL returners (`IPostgres`). */
  private constructor(readonly connection: PostgresConnection) {}

  /** Connects, creates the schema when missing, and gives the cache; `BrineError JOB_CACHE_IO` when the server cannot be used. */
  static async open(opts: PostgresOptions): Promise<PostgresJobCache> {
    const cache = new PostgresJobCache(new PostgresConnection(opts));
    try {
      await cache.transaction('job cache: creating the schema', async (client) => {
        await client.query('SELECT pg_advisory_xact_lock($1)', [POSTGRES_SCHEMA_LOCK]);
        await client.query(POSTGRES_SCHEMA);
      });
    } catch (err) {
      await cache.connection.close();
      throw err;
    }
    return cache;
  }

  private query<R extends QueryResultRow>(action: string, sql: string, params: unknown[]): Promise<R[]> {
    return this.connection.query<R>(`job cache: ${action}`, sql, params);
  }

  private transaction<T>(action: string, body: (client: PoolClient) => Promise<T>): Promise<T> {
    return this.connection.transaction(`job cache: ${action}`, body);
  }

  async saveJob(job: JobInput): Promise<void> {
    const r = jobRow(job);
    await this.query('saving a job', INSERT_JOB, [r.jid, r.tgt, r.tgt_type, r.fun, r.arg, r.user, r.minions, r.started_ms, r.metadata]);
  }

  async saveReturn(ret: ReturnInput): Promise<boolean> {
    const row = returnRow(ret);
    const inserted = await this.query(
      'saving a return',
      INSERT_ONE_RETURN,
      RETURN_COLUMNS.map((c) => row[c]),
    );
    return inserted.length === 1;
  }

  async saveReturns(rets: readonly ReturnInput[]): Promise<boolean[]> {
    if (!Array.isArray(rets)) throw new JobCacheError('BAD_RETURN', 'saveReturns needs a list of returns');
    const rows = rets.map(returnRow);
    if (rows.length === 0) return [];
    const stored = new Set<string>();
    await this.transaction('saving returns', async (client) => {
      for (let i = 0; i < rows.length; i += ROWS_PER_INSERT) {
        const chunk = rows.slice(i, i + ROWS_PER_INSERT);
        const res = await client.query<{ jid: string; id: string }>(
          insertReturnsSql(chunk.length),
          chunk.flatMap((row: ReturnRow) => RETURN_COLUMNS.map((c) => row[c])),
        );
        for (const r of res.rows) stored.add(JSON.stringify([r.jid, r.id]));
      }
    });
    // A pair given twice in one batch is stored once: the first occurrence wins, as it would one by one.
    return rows.map((row) => stored.delete(JSON.stringify([row.jid, row.id])));
  }

  async getJob(jid: string): Promise<JobRecord | undefined> {
    const rows = await this.query('reading a job', 'SELECT * FROM brine_jobs WHERE jid = $1', [String(jid)]);
    return rows.length === 0 ? undefined : jobFromRow(rows[0]);
  }

  async getReturns(jid: string): Promise<Record<string, StoredReturn>> {
    return returnsFromRows(
      await this.query('reading returns', 'SELECT * FROM brine_returns WHERE jid = $1 ORDER BY at_ms, seq', [String(jid)]),
    );
  }

  async listJobs(filter: JobFilter = {}): Promise<JobRecord[]> {
    const { from, to } = filterBounds(filter);
    const rows = await this.query('listing jobs', 'SELECT * FROM brine_jobs WHERE started_ms >= $1 AND started_ms <= $2 ORDER BY jid', [
      from,
      to,
    ]);
    return rows.map(jobFromRow).filter((job) => matchesPatterns(job, filter));
  }

  async clean(olderThan: Date): Promise<number> {
    if (!(olderThan instanceof Date) || !Number.isFinite(olderThan.getTime())) {
      throw new JobCacheError('BAD_JOB_FILTER', 'clean needs a valid Date');
    }
    const cutoff = olderThan.getTime();
    return this.transaction('cleaning', async (client) => {
      await client.query('DELETE FROM brine_returns WHERE jid IN (SELECT jid FROM brine_jobs WHERE started_ms < $1)', [cutoff]);
      const jobs = (await client.query('DELETE FROM brine_jobs WHERE started_ms < $1', [cutoff])).rowCount ?? 0;
      const orphans = await client.query<{ n: string }>(`SELECT COUNT(DISTINCT jid) AS n ${ORPHANS}`, [cutoff]);
      await client.query(`DELETE ${ORPHANS}`, [cutoff]);
      return jobs + Number(orphans.rows[0].n);
    });
  }

  close(): Promise<void> {
    return this.connection.close();
  }
}
