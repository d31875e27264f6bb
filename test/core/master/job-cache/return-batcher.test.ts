import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ReturnBatcher, SqliteJobCache, type ReturnInput } from '../../../../src/core/master/job-cache';
import { ret } from './support/contract';

let cache: SqliteJobCache;
beforeEach(() => {
  cache = new SqliteJobCache(':memory:');
});
afterEach(() => cache.close());

describe('ReturnBatcher (group commit)', () => {
  it('stores the returns of one loop turn in one transaction, each promise settling after the commit', async () => {
    const spy = vi.spyOn(cache, 'saveReturns');
    const batcher = new ReturnBatcher(cache);
    const ids = Array.from({ length: 500 }, (_, i) => `m${i}`);
    const answers = await Promise.all(ids.map((id) => batcher.save(ret('20261202131309576618', id))));
    expect(answers.every((a) => a === true)).toBe(true);
    expect(spy).toHaveBeenCalledTimes(1);
    expect(Object.keys(cache.getReturns('20261202131309576618'))).toHaveLength(500);
  });

  it('a repeated return resolves false; a bad one is refused at once and spoils nothing', async () => {
    const batcher = new ReturnBatcher(cache);
    const bad = { ...ret('20261202131309576618', 'web3'), success: 'no' } as unknown as ReturnInput;
    const results = await Promise.allSettled([
      batcher.save(ret('20261202131309576618', 'web1')),
      batcher.save(ret('20261202131309576618', 'web1')),
      batcher.save(bad),
      batcher.save(ret('20261202131309576618', 'web2')),
    ]);
    expect(results.map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as { code: string }).code))).toEqual([
      true,
      false,
      'BAD_RETURN',
      true,
    ]);
    expect(Object.keys(cache.getReturns('20261202131309576618'))).toEqual(['web1', 'web2']);
  });

  it('splits a flood into batches of maxBatch', async () => {
    const spy = vi.spyOn(cache, 'saveReturns');
    const batcher = new ReturnBatcher(cache, { maxBatch: 100 });
    await Promise.all(Array.from({ length: 250 }, (_, i) => batcher.save(ret('20261202131309576618', `m${i}`))));
    expect(spy.mock.calls.map((c) => c[0].length)).toEqual([100, 100, 50]);
  });

  it('a failed commit rejects every return of that batch; drain waits for the queue', async () => {
    const batcher = new ReturnBatcher(cache);
    const pending = [batcher.save(ret('20261202131309576618', 'a')), batcher.save(ret('20261202131309576618', 'b'))];
    const drained = batcher.drain();
    cache.close();
    const results = await Promise.allSettled(pending);
    expect(results.map((r) => (r.status === 'rejected' ? (r.reason as { code: string }).code : 'ok'))).toEqual([
      'JOB_CACHE_CLOSED',
      'JOB_CACHE_CLOSED',
    ]);
    await drained;
    await new ReturnBatcher(cache).drain();
  });

  it('under a flood, commits are spaced windowMs apart: what arrives meanwhile shares the next one', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setImmediate', 'clearImmediate', 'performance'] });
    try {
      const spy = vi.spyOn(cache, 'saveReturns');
      const batcher = new ReturnBatcher(cache, { windowMs: 50 });
      const a = batcher.save(ret('20261202131309576618', 'a'));
      await vi.advanceTimersByTimeAsync(0);
      expect(await a).toBe(true); // a lone return is committed at once
      const b = batcher.save(ret('20261202131309576618', 'b'));
      await vi.advanceTimersByTimeAsync(10);
      const c = batcher.save(ret('20261202131309576618', 'c'));
      await vi.advanceTimersByTimeAsync(10);
      expect(spy).toHaveBeenCalledTimes(1);
      await vi.advanceTimersByTimeAsync(40);
      expect(await Promise.all([b, c])).toEqual([true, true]);
      expect(spy.mock.calls.map((call) => call[0].map((r) => r.id))).toEqual([['a'], ['b', 'c']]);
    } finally {
      vi.useRealTimers();
    }
  });

  it('refuses a bad maxBatch or windowMs', () => {
    expect(() => new ReturnBatcher(cache, { windowMs: -1 })).toThrow(expect.objectContaining({ code: 'BAD_JOB_CACHE_OPTION' }));
    expect(() => new ReturnBatcher(cache, { maxBatch: 0 })).toThrow(expect.objectContaining({ code: 'BAD_JOB_CACHE_OPTION' }));
  });
});
