/**
 * One PostgreSQL connection pool with brine's error handling: the job cache's, and the one the
 * PostgreSQL returners write through (`IPostgres` in the plugin API). Every failure is a typed
 * `JOB_CACHE_IO` error naming the server and what was being done.
 */
import type { Pool, PoolClient, QueryResultRow } from 'pg';
import { BrineError } from '../../errors';
import { JobCacheError } from './errors';

export interface PostgresOptions {
  host: string;
  port: number;
  user: string;
  password: string;
  database: string;
  /** Connections in the pool (default 10). */
  max?: number;
  /** How long to wait for a connection, in ms (default 10000). */
  connectTimeoutMs?: number;
}

export function postgresWhere(opts: PostgresOptions): string {
  return `postgresql://${opts.user}@${opts.host}:${opts.port}/${opts.database}`;
}

export class PostgresConnection {
  private closed = false;
  private readonly pool: Pool;

  /** Does not connect yet: the first query does. */
  constructor(readonly opts: PostgresOptions) {
    // pg is loaded when a connection is made, not by every command that imports this module.
    const { Pool: PgPool } = require('pg') as typeof import('pg');
    this.pool = new PgPool({
      host: opts.host,
      port: opts.port,
      user: opts.user,
      password: opts.password,
      database: opts.database,
      max: opts.max ?? 10,
      connectionTimeoutMillis: opts.connectTimeoutMs ?? 10_000,
    });
    // An idle connection that drops emits 'error' on the pool; unhandled, that would end the
    // process. The next query gets a fresh connection or a typed error instead.
    this.pool.on('error', () => undefined);
  }

  private ioError(action: string, err: unknown): BrineError {
    if (err instanceof BrineError) return err;
    return new JobCacheError('JOB_CACHE_IO', `${postgresWhere(this.opts)}: ${action} failed: ${(err as Error).message}`, {
      cause: err,
      hint: 'check the postgres options (host, port, user, pass, db) in the config, and that the server is up',
    });
  }

  private checkOpen(action: string): void {
    if (this.closed) throw new JobCacheError('JOB_CACHE_CLOSED', `${postgresWhere(this.opts)} is closed (${action})`);
  }

  async query<R extends QueryResultRow>(action: string, sql: string, params: readonly unknown[] = []): Promise<R[]> {
    this.checkOpen(action);
    try {
      return (await this.pool.query<R>(sql, params as unknown[])).rows;
    } catch (err) {
      throw this.ioError(action, err);
    }
  }

  async transaction<T>(action: string, body: (client: PoolClient) => Promise<T>): Promise<T> {
    this.checkOpen(action);
    let client: PoolClient;
    try {
      client = await this.pool.connect();
    } catch (err) {
      throw this.ioError(action, err);
    }
    try {
      await client.query('BEGIN');
      const result = await body(client);
      await client.query('COMMIT');
      return result;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw this.ioError(action, err);
    } finally {
      client.release();
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.pool.end().catch(() => undefined);
  }
}
