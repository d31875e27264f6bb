/**
 * Group commit for the hot path: returns that arrive within one turn of the event loop are stored
 * in one transaction, and each caller's promise settles once that transaction has committed, so
 * the master still replies to a minion only after its return is stored. One commit per return
 * costs far more than the row itself (see bench.ts), so under a return flood this multiplies
 * what the cache takes; a lone return waits only until the end of the current loop turn.
 *
 *   const batcher = new ReturnBatcher(cache);
 *   const stored = await batcher.save(ret);   // then acknowledge the minion
 */
import { JobCacheError } from './errors';
import { BrineError } from '../../errors';
import { returnRow } from './rows';
import type { JobCache, ReturnInput } from './types';

interface Pending {
  ret: ReturnInput;
  resolve: (stored: boolean) => void;
  reject: (err: unknown) => void;
}

export class ReturnBatcher {
  private queue: Pending[] = [];
  private scheduled = false;
  private flushing = false;
  private readonly maxBatch: number;
  private idleWaiters: Array<() => void> = [];

  constructor(
    private readonly cache: JobCache,
    opts: { maxBatch?: number } = {},
  ) {
    this.maxBatch = opts.maxBatch ?? 1000;
    if (!Number.isInteger(this.maxBatch) || this.maxBatch < 1) {
      throw new JobCacheError('BAD_JOB_CACHE_OPTION', `maxBatch must be a positive integer, not ${String(opts.maxBatch)}`);
    }
  }

  /**
   * Stores a return with the others of this loop turn. Resolves as saveReturn does (false = a
   * repeated return, dropped); a bad return is refused at once and does not spoil the batch.
   */
  save(ret: ReturnInput): Promise<boolean> {
    try {
      returnRow(ret);
    } catch (err) {
      return Promise.reject(err);
    }
    return new Promise<boolean>((resolve, reject) => {
      this.queue.push({ ret, resolve, reject });
      this.schedule();
    });
  }

  /** Resolves once everything queued so far has been stored (or refused). */
  drain(): Promise<void> {
    if (this.queue.length === 0 && !this.flushing && !this.scheduled) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private schedule(): void {
    if (this.scheduled || this.flushing) return;
    this.scheduled = true;
    // setImmediate: after the I/O callbacks of this turn, so every return read in it joins.
    setImmediate(() => void this.flush());
  }

  private async flush(): Promise<void> {
    this.scheduled = false;
    this.flushing = true;
    const batch = this.queue.splice(0, this.maxBatch);
    try {
      const answers = await this.cache.saveReturns(batch.map((p) => p.ret));
      batch.forEach((p, i) => p.resolve(answers[i]));
    } catch (err) {
      for (const p of batch) p.reject(err);
    } finally {
      this.flushing = false;
      if (this.queue.length > 0) this.schedule();
      else for (const w of this.idleWaiters.splice(0)) w();
    }
  }
}
