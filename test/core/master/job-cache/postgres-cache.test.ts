import { Client } from 'pg';
import { describe, expect, it } from 'vitest';
import { MemoryGrains } from 'brine/testing';
import { BUILTIN_PLUGINS, BUILTIN_RETURNERS } from '../../../../plugins';
import { openJobCache, PostgresJobCache, ReturnBatcher } from '../../../../src/core/master/job-cache';
import { EventReturns } from '../../../../src/plugins/event-returns';
import { PluginRuntime } from '../../../../src/plugins/runtime';
import { StaticConfig } from '../../../../src/plugins/services/config';
import { StreamLogger } from '../../../../src/plugins/services/logger';
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

  it('a database from before the metadata column gets it when a master opens it, jobs kept', async () => {
    await truncateTables(pg.options());
    const client = new Client(pg.options());
    await client.connect();
    try {
      await client.query('ALTER TABLE brine_jobs DROP COLUMN IF EXISTS metadata');
      await client.query(
        `INSERT INTO brine_jobs (jid, tgt, tgt_type, fun, arg, "user", minions, started_ms) VALUES ('20261202131309576618', '"*"', 'glob', '"test.ping"', '[]', 'root', '[]', 1)`,
      );
    } finally {
      await client.end();
    }
    const cache = await PostgresJobCache.open(pg.options());
    expect((await cache.getJob('20261202131309576618'))?.fun).toBe('test.ping');
    await cache.saveJob(job('20261202131309576619', { metadata: { ticket: 'OPS-1' } }));
    expect((await cache.getJob('20261202131309576619'))?.metadata).toEqual({ ticket: 'OPS-1' });
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

  describe('the pgjsonb returner, through the job cache connection', () => {
    const select = async (sql: string, values: unknown[]) => {
      const client = new Client(pg.options());
      await client.connect();
      try {
        return (await client.query(sql, values)).rows;
      } finally {
        await client.end();
      }
    };
    const errors: string[] = [];
    const logger = new StreamLogger('error', (line) => errors.push(line));

    it("on a minion (--return pgjsonb): Salt's salt_returns and jids rows, from Salt's returner.postgres.* options", async () => {
      const o = pg.options();
      const runtime = await PluginRuntime.start({
        config: new StaticConfig({
          id: 'web1',
          'returner.postgres.host': o.host,
          'returner.postgres.port': o.port,
          'returner.postgres.user': o.user,
          'returner.postgres.passwd': o.password,
          'returner.postgres.db': o.database,
        }),
        grains: new MemoryGrains({ kernel: 'Linux' }),
        logger,
        builtins: BUILTIN_PLUGINS,
      });
      const jid = '20261203130000000001';
      await runtime.sendToReturners(
        { fun: 'test.echo', arg: ['hi'], jid, ret: 'pgjsonb' },
        { return: { a: [1, 2] }, retcode: 0, success: true },
      );
      expect(errors).toEqual([]);
      const rows = await select('SELECT fun, jid, return, id, success, full_ret FROM salt_returns WHERE jid = $1', [jid]);
      expect(rows).toEqual([
        {
          fun: 'test.echo',
          jid,
          return: { a: [1, 2] },
          id: 'web1',
          success: 'true',
          full_ret: { id: 'web1', jid, fun: 'test.echo', fun_args: ['hi'], return: { a: [1, 2] }, retcode: 0, success: true },
        },
      ]);
      const call = (fun: string, arg: unknown[]) => runtime.invoke('returner', fun, { arg }, { fun, jid: 'req' });
      await call('pgjsonb.save_load', [jid, { fun: 'test.echo', tgt: 'web*' }]);
      expect(await call('pgjsonb.get_load', [jid])).toEqual({ fun: 'test.echo', tgt: 'web*' });
      expect(await call('pgjsonb.get_jid', [jid])).toEqual({ web1: rows[0].full_ret });
      expect(await call('pgjsonb.get_minions', [])).toContain('web1');
    });

    it("on the master (event_return: pgjsonb): salt_events rows through the job cache's own pool", async () => {
      const cache = await PostgresJobCache.open(pg.options());
      // No postgres options here: only the job cache's connection can reach the server.
      const returns = await EventReturns.start({
        config: { event_return: 'pgjsonb', id: 'master-a' },
        logger,
        builtins: BUILTIN_RETURNERS,
        jobCache: cache,
      });
      returns!.push('salt/job/20261203130000000002/new', { jid: '20261203130000000002', minions: ['web1'] });
      returns!.push('brine/test/event', { n: 2 });
      await returns!.stop();
      expect(errors).toEqual([]);
      const rows = await select(
        "SELECT tag, data, master_id FROM salt_events WHERE tag LIKE '%20261203130000000002%' OR tag = $1 ORDER BY id",
        ['brine/test/event'],
      );
      expect(rows).toEqual([
        { tag: 'salt/job/20261203130000000002/new', data: { jid: '20261203130000000002', minions: ['web1'] }, master_id: 'master-a' },
        { tag: 'brine/test/event', data: { n: 2 }, master_id: 'master-a' },
      ]);
      // The returners' stop left the master's job cache open.
      expect(await cache.getJob('nosuch')).toBeUndefined();
      await cache.close();
    });
  });

  describe("the postgres returner: Salt's text tables, through the job cache connection", () => {
    const errors: string[] = [];
    const logger = new StreamLogger('error', (line) => errors.push(line));
    const sql = async (text: string, values: unknown[] = []) => {
      const client = new Client(pg.options());
      await client.connect();
      try {
        return (await client.query(text, values)).rows;
      } finally {
        await client.end();
      }
    };

    it('stores returns, loads and events as JSON text, and reads them back as Salt does', async () => {
      // The pgjsonb cases above made jsonb tables of the same names: start from Salt's own layout.
      await sql('DROP TABLE IF EXISTS jids, salt_returns, salt_events');
      const o = pg.options();
      const runtime = await PluginRuntime.start({
        config: new StaticConfig({
          id: 'web1',
          'returner.postgres.host': o.host,
          'returner.postgres.port': o.port,
          'returner.postgres.user': o.user,
          'returner.postgres.passwd': o.password,
          'returner.postgres.db': o.database,
        }),
        grains: new MemoryGrains({ kernel: 'Linux' }),
        logger,
        builtins: BUILTIN_PLUGINS,
      });
      const jid = '20261203140000000001';
      await runtime.sendToReturners({ fun: 'test.echo', arg: ['hi'], jid, ret: 'postgres' }, { return: 'hi', retcode: 0, success: true });
      expect(errors).toEqual([]);
      const types = await sql(
        "SELECT column_name, data_type FROM information_schema.columns WHERE table_name = 'salt_returns' AND column_name IN ('return', 'full_ret') ORDER BY 1",
      );
      expect(types).toEqual([
        { column_name: 'full_ret', data_type: 'text' },
        { column_name: 'return', data_type: 'text' },
      ]);
      const full = { id: 'web1', jid, fun: 'test.echo', fun_args: ['hi'], return: 'hi', retcode: 0, success: true };
      expect(await sql('SELECT fun, jid, return, id, success, full_ret FROM salt_returns')).toEqual([
        { fun: 'test.echo', jid, return: '"hi"', id: 'web1', success: 'true', full_ret: JSON.stringify(full) },
      ]);
      const call = (fun: string, arg: unknown[]) => runtime.invoke('returner', fun, { arg }, { fun, jid: 'req' });
      await call('postgres.save_load', [jid, { fun: 'test.echo', arg: ['hi'], tgt: 'web*', tgt_type: 'glob', user: 'root' }]);
      await call('postgres.save_load', [jid, { fun: 'other' }]);
      expect(await call('postgres.get_load', [jid])).toEqual({
        fun: 'test.echo',
        arg: ['hi'],
        tgt: 'web*',
        tgt_type: 'glob',
        user: 'root',
      });
      expect(await call('postgres.get_load', ['20000101000000000000'])).toEqual({});
      expect(await call('postgres.get_jid', [jid])).toEqual({ web1: full });
      expect(await call('postgres.get_fun', ['test.echo'])).toEqual({ web1: full });
      expect(await call('postgres.get_jids', [])).toEqual({
        [jid]: {
          Function: 'test.echo',
          Arguments: ['hi'],
          Target: 'web*',
          'Target-type': 'glob',
          User: 'root',
          StartTime: '2026, Dec 03 14:00:00.000001',
        },
      });
      expect(await call('postgres.get_minions', [])).toEqual(['web1']);
      const cache = await PostgresJobCache.open(pg.options());
      const returns = await EventReturns.start({
        config: { event_return: 'postgres', id: 'master-b' },
        logger,
        builtins: BUILTIN_RETURNERS,
        jobCache: cache,
      });
      returns!.push('brine/test/pg', { n: 3 });
      await returns!.stop();
      await cache.close();
      expect(errors).toEqual([]);
      expect(await sql("SELECT tag, data, master_id FROM salt_events WHERE master_id = 'master-b'")).toEqual([
        { tag: 'brine/test/pg', data: '{"n":3}', master_id: 'master-b' },
      ]);
    });
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
