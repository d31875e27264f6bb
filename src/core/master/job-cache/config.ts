/**
 * The master options that choose and tune the job cache.
 *
 *   master_job_cache: local_cache | sqlite      -> SQLite in <cachedir>/job-cache.sqlite3 (default)
 *   master_job_cache: postgres | pgjsonb        -> PostgreSQL, connection from:
 *     postgres: {host, port, user, pass, db}    (nested, as brine documents it), or Salt's flat
 *     returner.postgres.host / postgres.host ... (Salt's postgres returner names, `passwd`; the
 *     pgjsonb names `returner.pgjsonb.*` / `pgjsonb.*` are read too)
 *   master_job_cache: <returner>             -> that returner's job cache functions (returner-cache.ts)
 *   keep_jobs (hours, default 24) / keep_jobs_seconds (Salt 3006+; default 86400)
 *
 * Defaults of the connection are Salt's postgres returner's: host `salt`, port 5432, user `salt`,
 * password `salt`, database `salt`.
 */
import { join } from 'node:path';
import type { MasterConfig } from '../../config';
import { ConfigError } from '../../errors';
import type { PostgresOptions } from './postgres-cache';
import type { JobCacheBackend } from './types';
import type { SqliteSynchronous } from './sqlite-cache';

/**
 * The master options the job cache reads: a loaded master config is one as it is. `postgres` is
 * brine's nested form (`pass`, `passwd` and `password` are all read); `job_cache_synchronous` is
 * 'normal' (default) or 'full' (see sqlite-cache.ts); Salt's flat option names
 * (`returner.postgres.host`, `postgres.db`, ...) come through the index signature.
 */
export type JobCacheConfig = Pick<MasterConfig, 'cachedir'> &
  Partial<Pick<MasterConfig, 'master_job_cache' | 'keep_jobs' | 'keep_jobs_seconds' | 'postgres' | 'job_cache_synchronous'>> & {
    [flat: string]: unknown;
  };

export const SQLITE_FILE = 'job-cache.sqlite3';

const BACKENDS: Record<string, JobCacheBackend> = {
  local_cache: 'sqlite',
  sqlite: 'sqlite',
  postgres: 'postgres',
  pgjsonb: 'postgres',
};

/** The job caches built into the master (any other name is a returner's, see src/plugins/master-job-cache.ts). */
export const BUILTIN_JOB_CACHES: readonly string[] = Object.keys(BACKENDS);

export function isBuiltinJobCache(name: unknown): boolean {
  return typeof name === 'string' && Object.hasOwn(BACKENDS, name);
}

export function jobCacheBackend(config: JobCacheConfig): JobCacheBackend {
  const name = config.master_job_cache ?? 'local_cache';
  const backend = typeof name === 'string' ? BACKENDS[name] : undefined;
  if (backend === undefined) {
    throw new ConfigError('UNKNOWN_JOB_CACHE', `master_job_cache: ${JSON.stringify(name)} is not a job cache brine has`, {
      hint: `use one of: ${Object.keys(BACKENDS).join(', ')}`,
    });
  }
  return backend;
}

export function sqlitePath(config: JobCacheConfig): string {
  if (typeof config.cachedir !== 'string' || config.cachedir === '') {
    throw new ConfigError('BAD_OPTION', 'cachedir must be a directory path for the job cache');
  }
  return join(config.cachedir, SQLITE_FILE);
}

/** job_cache_synchronous, checked: `ConfigError BAD_OPTION` for anything but 'normal' or 'full'. */
export function sqliteSynchronous(config: JobCacheConfig): SqliteSynchronous {
  const v = config.job_cache_synchronous ?? 'normal';
  if (v !== 'normal' && v !== 'full') {
    throw new ConfigError('BAD_OPTION', `job_cache_synchronous must be 'normal' or 'full', not ${JSON.stringify(v)}`, {
      hint: 'set job_cache_synchronous: normal (survives kill -9) or full (survives power loss) in the master config',
    });
  }
  return v;
}

/** Where each connection field may be written, first match wins. */
const FIELD_NAMES: Record<keyof Omit<PostgresOptions, 'max' | 'connectTimeoutMs'>, string[]> = {
  host: ['host'],
  port: ['port'],
  user: ['user'],
  password: ['pass', 'passwd', 'password'],
  database: ['db', 'database', 'dbname'],
};
const FLAT_PREFIXES = ['returner.postgres.', 'postgres.', 'returner.pgjsonb.', 'pgjsonb.'];
const DEFAULTS = { host: 'salt', port: 5432, user: 'salt', password: 'salt', database: 'salt' };

function pick(config: JobCacheConfig, names: string[]): unknown {
  const nested = config.postgres;
  if (nested !== undefined && (nested === null || typeof nested !== 'object' || Array.isArray(nested))) {
    throw new ConfigError('BAD_OPTION', 'postgres must be a mapping of host, port, user, pass, db');
  }
  for (const n of names) if (nested && nested[n] !== undefined && nested[n] !== null) return nested[n];
  for (const prefix of FLAT_PREFIXES) {
    for (const n of names) {
      const v = config[prefix + n];
      if (v !== undefined && v !== null) return v;
    }
  }
  return undefined;
}

/** The PostgreSQL connection from the master config; `ConfigError BAD_OPTION` names a bad field. */
export function postgresOptions(config: JobCacheConfig): PostgresOptions {
  const out: PostgresOptions = { ...DEFAULTS };
  for (const field of ['host', 'user', 'password', 'database'] as const) {
    const v = pick(config, FIELD_NAMES[field]);
    if (v === undefined) continue;
    // YAML may load a numeric password or database name as a number.
    if (typeof v !== 'string' && typeof v !== 'number')
      throw new ConfigError('BAD_OPTION', `postgres ${FIELD_NAMES[field][0]} must be text`);
    out[field] = String(v);
  }
  const port = pick(config, FIELD_NAMES.port);
  if (port !== undefined) {
    const n = typeof port === 'string' && /^\d+$/.test(port) ? Number(port) : port;
    if (typeof n !== 'number' || !Number.isInteger(n) || n < 1 || n > 65535) {
      throw new ConfigError('BAD_OPTION', `postgres port must be a TCP port number, not ${JSON.stringify(port)}`);
    }
    out.port = n;
  }
  return out;
}

/**
 * How long jobs are kept, in seconds; 0 = forever. Salt 3006 moved to keep_jobs_seconds and still
 * honours keep_jobs when it was changed from its default of 24 hours.
 */
export function retentionSeconds(config: Pick<JobCacheConfig, 'keep_jobs' | 'keep_jobs_seconds'>): number {
  const check = (name: string, v: unknown): number => {
    if (typeof v !== 'number' || !Number.isFinite(v) || v < 0)
      throw new ConfigError('BAD_OPTION', `${name} must be a number >= 0, not ${JSON.stringify(v)}`);
    return v;
  };
  if (config.keep_jobs !== undefined && config.keep_jobs !== 24) return check('keep_jobs', config.keep_jobs) * 3600;
  if (config.keep_jobs_seconds !== undefined) return check('keep_jobs_seconds', config.keep_jobs_seconds);
  return 24 * 3600;
}
