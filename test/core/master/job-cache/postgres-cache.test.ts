import { describe, expect, it } from 'vitest';
import { openJobCache, PostgresJobCache, ReturnBatcher } from '../../../../src/core/master/job-cache';
import { freePort } from '../../../support/ports';
import { codeOf, job, jobCacheContract, ret } from './support/contract';
import { SKIP_PG, truncateTables, usePostgres } from './support/pg';

describe.skipIf(SKIP_PG)('PostgreSQL job cache against a real server', () => {
  const pg = usePostgres();

  describe('the shared contract', () => {
    jobCacheContract(async () => {
      const cache = await openJobCache({
        cachedir: '/nonexistent',
        master_job_cache: 'postgres',
        postgres: { ...pg.options(), pass: pg.options().password, db: pg.options().database },
      });
      await truncateTables(pg.options());
      return cache;
    });
  });

  it('several masters share one job history, and may create the schema at the same moment', async () => {
    await truncateTables(pg.options());
    const [a, b, c] = await Promise.all([0, 1, 2].map(() => PostgresJobCache.open(pg.options())));
    await a.saveJob(job('20261202131309576618'));
    await b.saveReturn(ret('20261202131309576618', 'web1'));
    await c.saveReturn(ret('20261202131309576618', 'web2'));
    expect(Object.keys(await a.getReturns('20261202131309576618'))).toEqual(['web1', 'web2']);
    expect((await c.listJobs()).map((j) => j.jid)).toEqual(['20261202131309576618']);
    await Promise.all([a.close(), b.close(), c.close()]);
  });

  it('Salt flat option names (returner.postgres.*) reach the server', async () => {
    const o = pg.options();
    const cache = await openJobCache({
      cachedir: '/nonexistent',
      master_job_cache: 'pgjsonb',
      'returner.postgres.host': o.host,
      'returner.postgres.port': o.port,
      'returner.postgres.user': o.user,
      'returner.postgres.passwd': o.password,
      'returner.postgres.db': o.database,
    });
    expect(cache.backend).toBe('postgres');
    await cache.close();
  });

  it('ReturnBatcher groups concurrent returns into one transaction here too', async () => {
    await truncateTables(pg.options());
    const cache = await PostgresJobCache.open(pg.options());
    const batcher = new ReturnBatcher(cache);
    const answers = await Promise.all(Array.from({ length: 200 }, (_, i) => batcher.save(ret('20261202131309576618', `m${i}`))));
    expect(answers.filter((a) => a)).toHaveLength(200);
    expect(await batcher.save(ret('20261202131309576618', 'm7'))).toBe(false);
    expect(Object.keys(await cache.getReturns('20261202131309576618'))).toHaveLength(200);
    await cache.close();
  });

  it('a wrong password is a JOB_CACHE_IO error', async () => {
    expect(await codeOf(() => PostgresJobCache.open({ ...pg.options(), password: 'wrong' }))).toBe('JOB_CACHE_IO');
  });
});

describe('PostgreSQL job cache without a server', () => {
  it('a port nobody listens on is a JOB_CACHE_IO error', async () => {
    const port = await freePort();
    expect(
      await codeOf(() =>
        PostgresJobCache.open({ host: '127.0.0.1', port, user: 'u', password: 'p', database: 'd', connectTimeoutMs: 2000 }),
      ),
    ).toBe('JOB_CACHE_IO');
  });
});
