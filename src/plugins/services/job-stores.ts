/**
 * The host side of the returners' stores ({@link IJobCache}, {@link IPostgres}): the job cache
 * code of the master (SQLite or PostgreSQL), loaded and opened on first use so that a daemon
 * whose returners never use them (a minion, as a rule) neither loads nor opens anything.
 */
import { IJobCache, IPostgres, type CachedReturn, type JobLoad, type JobReturn } from '../api/returner-services';
import type { JobCache, JobCacheConfig, PostgresConnection } from '../../core/master/job-cache';
import { lazyModule } from '../../core/lazy-module';
import { isJid, jidToDate } from '../../core/protocol/jid';

/** The job cache's code (a dozen modules), loaded when a returner first uses a store. */
function jobCacheCode(): Promise<typeof import('../../core/master/job-cache/index.js')> {
  return lazyModule(
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    () => require('../../core/master/job-cache/index.js') as typeof import('../../core/master/job-cache/index.js'),
    () => import('../../core/master/job-cache/index.js'),
  );
}

function toList(v: unknown): unknown[] {
  return Array.isArray(v) ? [...v] : v === undefined || v === null ? [] : [v];
}

/** {@link IJobCache} over a {@link JobCache}. */
export class JobCacheService implements IJobCache {
  private cache?: Promise<JobCache>;

  /** `open` gives the cache on first use; `owned`: close() closes it (not the master's own cache). */
  constructor(
    private readonly open: () => Promise<JobCache> | JobCache,
    private readonly owned = true,
  ) {}

  private get(): Promise<JobCache> {
    this.cache ??= Promise.resolve().then(this.open);
    return this.cache;
  }

  async saveReturn(ret: JobReturn): Promise<boolean> {
    const cache = await this.get();
    return cache.saveReturn({
      jid: String(ret.jid),
      id: String(ret.id),
      fun: ret.fun,
      fun_args: toList(ret.fun_args),
      return: ret.return,
      retcode: typeof ret.retcode === 'number' ? ret.retcode : 0,
      success: ret.success !== false,
      at: new Date(),
      ...(typeof ret.out === 'string' ? { out: ret.out } : {}),
    });
  }

  async saveLoad(jid: string, load: JobLoad, minions: string[] = []): Promise<void> {
    const cache = await this.get();
    // Salt's save_load gets the client's load: the metadata is in its kwargs (or, from a minion, at the top).
    const kwargs = load.kwargs !== null && typeof load.kwargs === 'object' ? (load.kwargs as Record<string, unknown>) : {};
    const metadata = load.metadata ?? kwargs.metadata;
    await cache.saveJob({
      jid: String(jid),
      tgt: load.tgt ?? '',
      tgt_type: String(load.tgt_type ?? 'glob'),
      fun: load.fun ?? '',
      arg: toList(load.arg),
      user: String(load.user ?? 'root'),
      minions: minions.map(String),
      started: isJid(jid) ? jidToDate(jid) : new Date(),
      ...(metadata === undefined ? {} : { metadata }),
    });
  }

  async getLoad(jid: string): Promise<Record<string, unknown> | undefined> {
    const job = await (await this.get()).getJob(String(jid));
    if (!job) return undefined;
    // Salt's local_cache.get_load: the publication, plus the expected minions as `Minions`.
    return { ...(await jobCacheCode()).jobLoad(job), Minions: job.minions };
  }

  async getReturns(jid: string): Promise<Record<string, CachedReturn>> {
    const stored = await (await this.get()).getReturns(String(jid));
    const out: Record<string, CachedReturn> = {};
    for (const [id, r] of Object.entries(stored)) {
      out[id] = { return: r.return, retcode: r.retcode, success: r.success, ...(r.out === undefined ? {} : { out: r.out }) };
    }
    return out;
  }

  async close(): Promise<void> {
    if (!this.owned || !this.cache) return;
    const cache = await this.cache.catch(() => undefined);
    await cache?.close();
  }
}

/** {@link IPostgres} over one {@link PostgresConnection}, made on first use. */
export class PostgresService implements IPostgres {
  private connection?: Promise<PostgresConnection>;

  constructor(
    private readonly make: () => Promise<PostgresConnection> | PostgresConnection,
    private readonly owned = true,
  ) {}

  async query<R extends Record<string, unknown> = Record<string, unknown>>(sql: string, values: readonly unknown[] = []): Promise<R[]> {
    this.connection ??= Promise.resolve().then(this.make);
    return (await this.connection).query<R>('returner query', sql, values);
  }

  async close(): Promise<void> {
    if (!this.owned || !this.connection) return;
    const connection = await this.connection.catch(() => undefined);
    await connection?.close();
  }
}

/** The returners' services of one daemon, and the close() that releases what they opened. */
export interface ReturnerStores {
  services: ReadonlyArray<readonly [symbol, unknown]>;
  close(): Promise<void>;
}

/**
 * The stores of a daemon from its config: its own job cache (`local_cache`: the given one on
 * the master, SQLite in `cachedir` on a minion) and the PostgreSQL connection of the
 * `returner.postgres.*` / `postgres.*` options (the job cache's pool when it is PostgreSQL).
 */
export function returnerStores(config: Record<string, unknown>, jobCache?: JobCache): ReturnerStores {
  const cacheConfig = config as JobCacheConfig;
  const cache = jobCache
    ? new JobCacheService(() => jobCache, false)
    : new JobCacheService(async () => (await jobCacheCode()).openJobCache({ ...cacheConfig, master_job_cache: 'local_cache' }));
  const shared = jobCache && 'connection' in jobCache ? (jobCache.connection as PostgresConnection) : undefined;
  const pg = shared
    ? new PostgresService(() => shared, false)
    : new PostgresService(async () => {
        const { PostgresConnection: Connection, postgresOptions } = await jobCacheCode();
        return new Connection({ ...postgresOptions(cacheConfig), max: 2 });
      });
  return {
    services: [
      [IJobCache, cache],
      [IPostgres, pg],
    ],
    close: async () => {
      await cache.close();
      await pg.close();
    },
  };
}
