/**
 * Retention: one periodic sweep removes jobs older than keep_jobs (no timer per job), as Salt's
 * maintenance process calls clean_old_jobs every loop_interval.
 *
 *   const cleaner = startJobCacheCleaner(cache, { keepSeconds: retentionSeconds(opts) });
 *   ...
 *   cleaner.stop();
 */
import { JobCacheError } from './errors';
import { BrineError } from '../../errors';
import type { JobCache } from './types';

export interface CleanerOptions {
  /** Jobs older than this are removed; 0 keeps everything (Salt's keep_jobs: 0). */
  keepSeconds: number;
  /** Time between sweeps, in ms (default 60000, Salt's loop_interval). */
  intervalMs?: number;
  /** The clock, for tests. */
  now?: () => Date;
  /** Told about a sweep that failed (the cleaner keeps going). */
  onError?: (err: unknown) => void;
  /** Told how many jids each sweep removed. */
  onSweep?: (removed: number) => void;
}

export interface JobCacheCleaner {
  /** Runs one sweep now; gives the number of jids removed (0 while another sweep runs). */
  sweep(): Promise<number>;
  stop(): void;
}

export function startJobCacheCleaner(cache: JobCache, opts: CleanerOptions): JobCacheCleaner {
  const { keepSeconds } = opts;
  if (typeof keepSeconds !== 'number' || !Number.isFinite(keepSeconds) || keepSeconds < 0) {
    throw new JobCacheError('BAD_JOB_CACHE_OPTION', `keepSeconds must be a number >= 0, not ${String(keepSeconds)}`);
  }
  const intervalMs = opts.intervalMs ?? 60_000;
  if (!Number.isInteger(intervalMs) || intervalMs <= 0) {
    throw new JobCacheError('BAD_JOB_CACHE_OPTION', `intervalMs must be a positive integer, not ${String(intervalMs)}`);
  }
  const now = opts.now ?? (() => new Date());
  let running = false;
  let stopped = false;

  const sweep = async (): Promise<number> => {
    if (keepSeconds === 0 || running || stopped) return 0;
    running = true;
    try {
      const removed = await cache.clean(new Date(now().getTime() - keepSeconds * 1000));
      opts.onSweep?.(removed);
      return removed;
    } finally {
      running = false;
    }
  };

  const timer = setInterval(() => {
    sweep().catch((err: unknown) => opts.onError?.(err));
  }, intervalMs);
  // The sweep must not keep a stopping master alive.
  timer.unref();

  return {
    sweep,
    stop() {
      stopped = true;
      clearInterval(timer);
    },
  };
}
