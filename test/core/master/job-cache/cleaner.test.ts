import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SqliteJobCache, startJobCacheCleaner, type JobCache } from '../../../../src/core/master/job-cache';
import { job, ret } from './support/contract';
import { codeOf } from '../../../support/errors';

const NOW = new Date('2026-12-02T12:00:00Z');
const hoursAgo = (h: number) => new Date(NOW.getTime() - h * 3600_000);

let cache: SqliteJobCache;
beforeEach(() => {
  cache = new SqliteJobCache(':memory:');
  cache.saveJob(job('20261130120000000000', { started: hoursAgo(48) }));
  cache.saveReturn(ret('20261130120000000000', 'web1', { at: hoursAgo(48) }));
  cache.saveJob(job('20261202110000000000', { started: hoursAgo(1) }));
  cache.saveReturn(ret('20261202110000000000', 'web1', { at: hoursAgo(1) }));
});
afterEach(() => {
  vi.useRealTimers();
  cache.close();
});

describe('job cache cleaner (keep_jobs)', () => {
  it('a sweep removes what is older than the retention, and keeps the rest', async () => {
    const cleaner = startJobCacheCleaner(cache, { keepSeconds: 24 * 3600, now: () => NOW });
    expect(await cleaner.sweep()).toBe(1);
    expect(cache.listJobs().map((j) => j.jid)).toEqual(['20261202110000000000']);
    expect(cache.getReturns('20261130120000000000')).toEqual({});
    cleaner.stop();
  });

  it('keep 0 keeps everything', async () => {
    const cleaner = startJobCacheCleaner(cache, { keepSeconds: 0, now: () => NOW });
    expect(await cleaner.sweep()).toBe(0);
    expect(cache.listJobs()).toHaveLength(2);
    cleaner.stop();
  });

  it('sweeps on its own every interval, one timer for all jobs', async () => {
    vi.useFakeTimers();
    const swept: number[] = [];
    const cleaner = startJobCacheCleaner(cache, {
      keepSeconds: 3600 / 2,
      intervalMs: 60_000,
      now: () => NOW,
      onSweep: (n) => swept.push(n),
    });
    await vi.advanceTimersByTimeAsync(59_000);
    expect(swept).toEqual([]);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(swept).toEqual([2]);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(swept).toEqual([2, 0]);
    expect(vi.getTimerCount()).toBe(1);
    cleaner.stop();
    expect(vi.getTimerCount()).toBe(0);
  });

  it('a failing sweep is reported and the cleaner goes on', async () => {
    vi.useFakeTimers();
    let calls = 0;
    const failing = {
      clean: () => {
        calls++;
        if (calls === 1) throw new Error('disk full');
        return 0;
      },
    } as unknown as JobCache;
    const errors: unknown[] = [];
    const cleaner = startJobCacheCleaner(failing, { keepSeconds: 60, intervalMs: 1000, onError: (e) => errors.push(e) });
    await vi.advanceTimersByTimeAsync(2000);
    expect(calls).toBe(2);
    expect(errors).toHaveLength(1);
    cleaner.stop();
  });

  it('refuses a bad retention or interval', () => {
    expect(codeOf(() => startJobCacheCleaner(cache, { keepSeconds: -1 }))).toBe('BAD_JOB_CACHE_OPTION');
    expect(codeOf(() => startJobCacheCleaner(cache, { keepSeconds: 1, intervalMs: 0 }))).toBe('BAD_JOB_CACHE_OPTION');
  });
});
