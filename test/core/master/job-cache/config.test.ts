import { describe, expect, it } from 'vitest';
import {
  jobCacheBackend,
  openJobCache,
  postgresOptions,
  retentionSeconds,
  sqlitePath,
  sqliteSynchronous,
} from '../../../../src/core/master/job-cache';
import { codeOfAsync as codeOf } from '../../../support/errors';

describe('job cache options', () => {
  it("chooses the backend from master_job_cache (local_cache, Salt's default, is SQLite)", async () => {
    expect(jobCacheBackend({ cachedir: '/c' })).toBe('sqlite');
    expect(jobCacheBackend({ cachedir: '/c', master_job_cache: 'local_cache' })).toBe('sqlite');
    expect(jobCacheBackend({ cachedir: '/c', master_job_cache: 'sqlite' })).toBe('sqlite');
    expect(jobCacheBackend({ cachedir: '/c', master_job_cache: 'postgres' })).toBe('postgres');
    expect(jobCacheBackend({ cachedir: '/c', master_job_cache: 'pgjsonb' })).toBe('postgres');
    expect(await codeOf(() => jobCacheBackend({ cachedir: '/c', master_job_cache: 'mysql' }))).toBe('UNKNOWN_JOB_CACHE');
    expect(await codeOf(() => openJobCache({ cachedir: '/c', master_job_cache: 'redis' }))).toBe('UNKNOWN_JOB_CACHE');
  });

  it('reads job_cache_synchronous (normal by default) and refuses anything else', async () => {
    expect(sqliteSynchronous({ cachedir: '/c' })).toBe('normal');
    expect(sqliteSynchronous({ cachedir: '/c', job_cache_synchronous: 'full' })).toBe('full');
    expect(await codeOf(() => sqliteSynchronous({ cachedir: '/c', job_cache_synchronous: 'FULL' }))).toBe('BAD_OPTION');
  });

  it('puts the SQLite file in cachedir', async () => {
    expect(sqlitePath({ cachedir: '/var/cache/salt/master' })).toBe('/var/cache/salt/master/job-cache.sqlite3');
    expect(await codeOf(() => sqlitePath({ cachedir: '' }))).toBe('BAD_OPTION');
  });

  it("reads the PostgreSQL connection nested, or with Salt's flat names, with Salt's defaults", async () => {
    expect(postgresOptions({ cachedir: '/c' })).toEqual({ host: 'salt', port: 5432, user: 'salt', password: 'salt', database: 'salt' });
    expect(postgresOptions({ cachedir: '/c', postgres: { host: 'db', port: 6543, user: 'u', pass: 'p', db: 'jobs' } })).toEqual({
      host: 'db',
      port: 6543,
      user: 'u',
      password: 'p',
      database: 'jobs',
    });
    expect(
      postgresOptions({
        cachedir: '/c',
        'returner.postgres.host': 'h',
        'returner.postgres.passwd': 1234,
        'postgres.db': 'd',
        'postgres.port': '7000',
      }),
    ).toEqual({ host: 'h', port: 7000, user: 'salt', password: '1234', database: 'd' });
    // The nested form wins over the flat one.
    expect(postgresOptions({ cachedir: '/c', postgres: { host: 'nested' }, 'postgres.host': 'flat' }).host).toBe('nested');
  });

  it('refuses a bad connection option, naming it', async () => {
    expect(await codeOf(() => postgresOptions({ cachedir: '/c', postgres: { port: 'high' } }))).toBe('BAD_OPTION');
    expect(await codeOf(() => postgresOptions({ cachedir: '/c', postgres: { port: 70000 } }))).toBe('BAD_OPTION');
    expect(await codeOf(() => postgresOptions({ cachedir: '/c', postgres: { host: ['a'] } }))).toBe('BAD_OPTION');
    expect(await codeOf(() => postgresOptions({ cachedir: '/c', postgres: 'db' as unknown as Record<string, unknown> }))).toBe(
      'BAD_OPTION',
    );
  });

  it('retention: keep_jobs hours when changed from 24, else keep_jobs_seconds', async () => {
    expect(retentionSeconds({})).toBe(86400);
    expect(retentionSeconds({ keep_jobs: 24, keep_jobs_seconds: 86400 })).toBe(86400);
    expect(retentionSeconds({ keep_jobs: 2, keep_jobs_seconds: 86400 })).toBe(7200);
    expect(retentionSeconds({ keep_jobs: 24, keep_jobs_seconds: 600 })).toBe(600);
    expect(retentionSeconds({ keep_jobs: 0 })).toBe(0);
    expect(await codeOf(() => retentionSeconds({ keep_jobs: -1 }))).toBe('BAD_OPTION');
  });
});
