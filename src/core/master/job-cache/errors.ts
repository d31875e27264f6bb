import { BrineError } from '../../errors';

/** The codes a {@link JobCacheError} carries. */
export type JobCacheErrorCode =
  'BAD_JOB' | 'BAD_RETURN' | 'BAD_JOB_FILTER' | 'BAD_JOB_CACHE_OPTION' | 'BAD_JOB_CACHE_VALUE' | 'JOB_CACHE_CLOSED' | 'JOB_CACHE_IO';

/** A job cache that cannot store or find what it is asked to (SQLite or PostgreSQL). */
export class JobCacheError extends BrineError<JobCacheErrorCode> {}
