/**
 * The master's job cache (Salt's `master_job_cache`): jobs and returns stored the moment they
 * arrive, for `salt-run jobs.*`.
 *
 *   const cache = await openJobCache({ cachedir: opts.cachedir, master_job_cache: opts.master_job_cache });
 *   cache.saveJob({ jid, tgt, tgt_type, fun, arg, user, minions, started: new Date() });
 *   await cache.saveReturn({ jid, id, fun, fun_args, return: ret, retcode: 0, success: true, at: new Date() });
 *   const returns = await cache.getReturns(jid);   // { web1: { return, retcode, success, at } }
 */
import { jobCacheBackend, postgresOptions, sqlitePath, sqliteSynchronous, type JobCacheConfig } from './config';
import { PostgresJobCache } from './postgres-cache';
import { SqliteJobCache } from './sqlite-cache';
import type { JobCache } from './types';

export type { JobCache, JobCacheBackend, JobFilter, JobInput, JobRecord, MaybePromise, ReturnInput, StoredReturn } from './types';
export { SqliteJobCache, type SqliteJobCacheOptions, type SqliteSynchronous } from './sqlite-cache';
export { PostgresJobCache, type PostgresOptions } from './postgres-cache';
export { PostgresConnection } from './postgres-connection';
export { jobLoad, ReturnerJobCache, type JobCacheReturner, type ReturnerCacheLog } from './returner-cache';
export {
  BUILTIN_JOB_CACHES,
  isBuiltinJobCache,
  jobCacheBackend,
  postgresOptions,
  retentionSeconds,
  sqlitePath,
  sqliteSynchronous,
  SQLITE_FILE,
  type JobCacheConfig,
} from './config';
export { startJobCacheCleaner, type CleanerOptions, type JobCacheCleaner } from './cleaner';
export { decodeValue, encodeValue } from './value-codec';
export { ReturnBatcher } from './return-batcher';

/**
 * Opens the job cache the master config names. Throws `ConfigError UNKNOWN_JOB_CACHE` /
 * `BAD_OPTION` for bad options and `BrineError JOB_CACHE_IO` when the store cannot be opened.
 */
export async function openJobCache(config: JobCacheConfig): Promise<JobCache> {
  if (jobCacheBackend(config) === 'postgres') return PostgresJobCache.open(postgresOptions(config));
  return new SqliteJobCache(sqlitePath(config), { synchronous: sqliteSynchronous(config) });
}
