/**
 * The stores returners write to (`@Returner` plugins): the job cache of this daemon, and the
 * PostgreSQL connection of the job cache.
 */

/** One job return as Salt's minion hands it to its returners (`ret`). */
export interface JobReturn {
  id: string;
  jid: string;
  fun: string | string[];
  fun_args: unknown[];
  return: unknown;
  retcode?: number;
  success?: boolean;
  /** The outputter the function asked for (`highstate`, ...). */
  out?: string;
  [field: string]: unknown;
}

/** A published job as Salt's `save_load` receives it. */
export interface JobLoad {
  jid?: string;
  tgt?: string | string[];
  tgt_type?: string;
  fun?: string | string[];
  arg?: unknown[];
  user?: string;
  [field: string]: unknown;
}

/** One minion's stored return, as {@link IJobCache.getReturns} gives it. */
export interface CachedReturn {
  return: unknown;
  retcode: number;
  success: boolean;
  out?: string;
}

/**
 * The daemon's own job cache (Salt's `local_cache`): on the master the master job cache that
 * `salt-run jobs.*` reads, on a minion an SQLite store in its `cachedir`.
 *
 * @example
 * await this.cache.saveReturn({ id: 'web1', jid, fun: 'test.ping', fun_args: [], return: true, success: true });
 * await this.cache.getReturns(jid); // { web1: { return: true, retcode: 0, success: true } }
 */
export interface IJobCache {
  /** Stores a return; false when this minion had already returned for this jid (Salt keeps the first). */
  saveReturn(ret: JobReturn): Promise<boolean>;
  /** Stores a job's publication; `minions` are those expected to answer. */
  saveLoad(jid: string, load: JobLoad, minions?: string[]): Promise<void>;
  /** A job's publication (`{jid, tgt, tgt_type, fun, arg, user, Minions}`), undefined when unknown. */
  getLoad(jid: string): Promise<Record<string, unknown> | undefined>;
  /** The returns of a job by minion id, `{}` when none. */
  getReturns(jid: string): Promise<Record<string, CachedReturn>>;
}
/** Service id of {@link IJobCache}. @example constructor(@inject(IJobCache) private readonly cache: IJobCache) {} */
export const IJobCache: unique symbol = Symbol.for('brine.IJobCache');

/**
 * SQL on the PostgreSQL server of the job cache (Salt's `returner.postgres.*` / `postgres.*`
 * options, read as `master_job_cache: postgres` reads them; on a master whose job cache is
 * PostgreSQL, its very connection pool). Parameters are `$1, $2, ...`. A failure is a
 * CommandExecutionError-like error naming the server.
 *
 * @example
 * await this.pg.query('INSERT INTO salt_events (tag, data, master_id) VALUES ($1, $2, $3)', [tag, JSON.stringify(data), id]);
 */
export interface IPostgres {
  query<R extends Record<string, unknown> = Record<string, unknown>>(sql: string, values?: readonly unknown[]): Promise<R[]>;
}
/** Service id of {@link IPostgres}. @example constructor(@inject(IPostgres) private readonly pg: IPostgres) {} */
export const IPostgres: unique symbol = Symbol.for('brine.IPostgres');
