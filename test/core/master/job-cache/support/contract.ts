/**
 * The behaviour every job cache backend must have; run against SQLite and PostgreSQL alike.
 * `open` gives an empty cache; the suite closes it.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { JobCache, JobInput, ReturnInput } from '../../../../../src/core/master/job-cache';
import { codeOfAsync as codeOf } from '../../../../support/errors';

export { codeOf };

const T0 = new Date('2026-12-02T13:13:09.576Z');
const at = (secondsAfter: number) => new Date(T0.getTime() + secondsAfter * 1000);

export function job(jid: string, over: Partial<JobInput> = {}): JobInput {
  return {
    jid,
    tgt: '*',
    tgt_type: 'glob',
    fun: 'test.ping',
    arg: [],
    user: 'root',
    minions: ['web1', 'web2', 'db1'],
    started: T0,
    ...over,
  };
}

export function ret(jid: string, id: string, over: Partial<ReturnInput> = {}): ReturnInput {
  return { jid, id, fun: 'test.ping', fun_args: [], return: true, retcode: 0, success: true, at: at(1), ...over };
}

export function jobCacheContract(open: () => Promise<JobCache>): void {
  let cache: JobCache;
  beforeEach(async () => {
    cache = await open();
  });
  afterEach(async () => {
    await cache.close();
  });

  it('stores a job and reads it back exactly, msgpack values included', async () => {
    const arg = [
      'a',
      7,
      2.5,
      null,
      { __kwarg__: true, raw: Buffer.from([0xff, 0x00]), big: 2n ** 70n },
      new Map<unknown, unknown>([[1, 'one']]),
    ];
    await cache.saveJob(
      job('20261202131309576618', { tgt: ['web1', 'db1'], tgt_type: 'list', fun: ['test.ping', 'test.echo'], arg, user: 'sudo_alice' }),
    );
    const got = await cache.getJob('20261202131309576618');
    expect(got).toEqual({
      jid: '20261202131309576618',
      tgt: ['web1', 'db1'],
      tgt_type: 'list',
      fun: ['test.ping', 'test.echo'],
      arg: ['a', 7, 2.5, null, { __kwarg__: true, raw: Buffer.from([0xff, 0x00]), big: '1180591620717411303424' }, new Map([[1, 'one']])],
      user: 'sudo_alice',
      minions: ['web1', 'web2', 'db1'],
      started: T0,
    });
  });

  it('keeps the metadata of a job (salt --metadata) and gives none for a job without', async () => {
    await cache.saveJob(job('20261202131309576618', { metadata: { ticket: 'OPS-1', n: [1, 2] } }));
    await cache.saveJob(job('20261202131325445421'));
    expect((await cache.getJob('20261202131309576618'))?.metadata).toEqual({ ticket: 'OPS-1', n: [1, 2] });
    expect(await cache.getJob('20261202131325445421')).not.toHaveProperty('metadata');
    expect((await cache.listJobs()).map((j) => j.metadata)).toEqual([{ ticket: 'OPS-1', n: [1, 2] }, undefined]);
  });

  it('gives undefined for an unknown job and {} for its returns', async () => {
    expect(await cache.getJob('20000101000000000000')).toBeUndefined();
    expect(await cache.getReturns('20000101000000000000')).toEqual({});
  });

  it('saving a jid again replaces the job', async () => {
    await cache.saveJob(job('20261202131309576618'));
    await cache.saveJob(job('20261202131309576618', { fun: 'cmd.run', arg: ['uptime'] }));
    expect((await cache.getJob('20261202131309576618'))?.fun).toBe('cmd.run');
    expect(await cache.listJobs()).toHaveLength(1);
  });

  it('stores returns and gives them by minion in arrival order', async () => {
    await cache.saveJob(job('20261202131309576618'));
    expect(await cache.saveReturn(ret('20261202131309576618', 'web2', { at: at(1) }))).toBe(true);
    expect(
      await cache.saveReturn(
        ret('20261202131309576618', 'db1', { return: 'boom', retcode: 1, success: false, at: at(2), out: 'highstate' }),
      ),
    ).toBe(true);
    expect(
      await cache.saveReturn(ret('20261202131309576618', 'web1', { return: { bytes: Buffer.from('\x80abc', 'latin1') }, at: at(2) })),
    ).toBe(true);
    const returns = await cache.getReturns('20261202131309576618');
    expect(Object.keys(returns)).toEqual(['web2', 'db1', 'web1']);
    expect(returns.web2).toEqual({ return: true, retcode: 0, success: true, at: at(1) });
    expect(returns.db1).toEqual({ return: 'boom', retcode: 1, success: false, at: at(2), out: 'highstate' });
    expect(returns.web1.return).toEqual({ bytes: Buffer.from([0x80, 0x61, 0x62, 0x63]) });
  });

  it('drops a second return from the same minion for the same jid (Salt: a possible replay)', async () => {
    expect(await cache.saveReturn(ret('20261202131309576618', 'web1', { return: 'first' }))).toBe(true);
    expect(await cache.saveReturn(ret('20261202131309576618', 'web1', { return: 'second' }))).toBe(false);
    expect((await cache.getReturns('20261202131309576618')).web1.return).toBe('first');
  });

  it('keeps a return whose job it never saw (another master published it)', async () => {
    await cache.saveReturn(ret('20261202131309576618', 'web1'));
    expect(Object.keys(await cache.getReturns('20261202131309576618'))).toEqual(['web1']);
  });

  it('stores a batch in one go, one answer per return', async () => {
    await cache.saveReturn(ret('20261202131309576618', 'web1'));
    const answers = await cache.saveReturns([
      ret('20261202131309576618', 'web1'),
      ret('20261202131309576618', 'web2', { return: 'w2' }),
      ret('20261202131309576618', 'web2', { return: 'again' }),
      ret('20261202131325445421', 'web1', { return: 'other job' }),
    ]);
    expect(answers).toEqual([false, true, false, true]);
    expect((await cache.getReturns('20261202131309576618')).web2.return).toBe('w2');
    expect((await cache.getReturns('20261202131325445421')).web1.return).toBe('other job');
    expect(await cache.saveReturns([])).toEqual([]);
  });

  it('a batch with one bad return stores none of it', async () => {
    const bad = { ...ret('20261202131309576618', 'web2'), retcode: 'x' } as unknown as ReturnInput;
    expect(await codeOf(() => cache.saveReturns([ret('20261202131309576618', 'web1'), bad]))).toBe('BAD_RETURN');
    expect(await cache.getReturns('20261202131309576618')).toEqual({});
  });

  it('many returns saved concurrently are all there on lookup', async () => {
    await cache.saveJob(job('20261202131309576618'));
    const ids = Array.from({ length: 300 }, (_, i) => `minion-${String(i).padStart(3, '0')}`);
    const answers = await Promise.all(ids.map((id, i) => cache.saveReturn(ret('20261202131309576618', id, { return: { n: i } }))));
    expect(answers.every((a) => a === true)).toBe(true);
    const returns = await cache.getReturns('20261202131309576618');
    expect(Object.keys(returns).sort()).toEqual(ids);
    expect(returns['minion-123'].return).toEqual({ n: 123 });
  });

  it('lists jobs in jid order, filtered by function, target and start time', async () => {
    await cache.saveJob(job('20261202131325445421', { fun: 'cmd.run', tgt: 'db*', started: at(16) }));
    await cache.saveJob(job('20261202131309576618', { started: at(0) }));
    await cache.saveJob(job('20261202131400000000', { fun: 'test.echo', tgt: ['web1', 'db1'], tgt_type: 'list', started: at(50) }));
    const jids = async (f = {}) => (await cache.listJobs(f)).map((j) => j.jid);
    expect(await jids()).toEqual(['20261202131309576618', '20261202131325445421', '20261202131400000000']);
    expect(await jids({ fun: ['test.*'] })).toEqual(['20261202131309576618', '20261202131400000000']);
    expect(await jids({ fun: ['cmd.run', 'test.echo'] })).toEqual(['20261202131325445421', '20261202131400000000']);
    expect(await jids({ tgt: ['db1'] })).toEqual(['20261202131400000000']);
    expect(await jids({ tgt: ['db*'] })).toEqual(['20261202131325445421', '20261202131400000000']);
    expect(await jids({ startedFrom: at(16), startedTo: at(50) })).toEqual(['20261202131325445421', '20261202131400000000']);
    expect(await jids({ startedTo: at(15) })).toEqual(['20261202131309576618']);
    expect(await jids({ fun: ['test.*'], startedFrom: at(1) })).toEqual(['20261202131400000000']);
  });

  it('clean removes old jobs with their returns, and old returns of unknown jobs', async () => {
    await cache.saveJob(job('20261201000000000000', { started: at(-86400) }));
    await cache.saveReturn(ret('20261201000000000000', 'web1', { at: at(-86399) }));
    await cache.saveReturn(ret('20261201000000000000', 'web2', { at: at(10) }));
    await cache.saveReturn(ret('20261201000000000001', 'web1', { at: at(-86000) }));
    await cache.saveJob(job('20261202131309576618', { started: at(0) }));
    await cache.saveReturn(ret('20261202131309576618', 'web1', { at: at(1) }));
    expect(await cache.clean(at(-3600))).toBe(2);
    expect(await cache.getJob('20261201000000000000')).toBeUndefined();
    expect(await cache.getReturns('20261201000000000000')).toEqual({});
    expect(await cache.getReturns('20261201000000000001')).toEqual({});
    expect(await cache.getJob('20261202131309576618')).toBeDefined();
    expect(Object.keys(await cache.getReturns('20261202131309576618'))).toEqual(['web1']);
    expect(await cache.clean(at(-3600))).toBe(0);
  });

  it('refuses bad input with typed errors naming the field', async () => {
    expect(await codeOf(() => cache.saveJob({ ...job('1'), jid: '' }))).toBe('BAD_JOB');
    expect(await codeOf(() => cache.saveJob({ ...job('1'), minions: 'web1' } as unknown as JobInput))).toBe('BAD_JOB');
    expect(await codeOf(() => cache.saveJob({ ...job('1'), started: new Date('nope') }))).toBe('BAD_JOB');
    expect(await codeOf(() => cache.saveJob(null as unknown as JobInput))).toBe('BAD_JOB');
    expect(await codeOf(() => cache.saveJob({ ...job('1'), arg: [() => 1] }))).toBe('BAD_JOB_CACHE_VALUE');
    expect(await codeOf(() => cache.saveReturn({ ...ret('1', 'web1'), success: 'yes' } as unknown as ReturnInput))).toBe('BAD_RETURN');
    expect(await codeOf(() => cache.saveReturn({ ...ret('1', 'web1'), id: '' }))).toBe('BAD_RETURN');
    expect(await codeOf(() => cache.saveReturn({ ...ret('1', 'web1'), retcode: 1.5 }))).toBe('BAD_RETURN');
    expect(await codeOf(() => cache.listJobs({ fun: 'test.*' } as unknown as { fun: string[] }))).toBe('BAD_JOB_FILTER');
    expect(await codeOf(() => cache.listJobs({ startedFrom: new Date(NaN) }))).toBe('BAD_JOB_FILTER');
    expect(await codeOf(() => cache.clean(new Date(NaN)))).toBe('BAD_JOB_FILTER');
  });

  it('says so when used after close', async () => {
    await cache.close();
    expect(await codeOf(() => cache.getJob('20261202131309576618'))).toBe('JOB_CACHE_CLOSED');
    expect(await codeOf(() => cache.saveReturn(ret('20261202131309576618', 'web1')))).toBe('JOB_CACHE_CLOSED');
  });
}
