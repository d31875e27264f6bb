import { BrineError } from '../../errors';

/** The codes a {@link JobCacheError} carries. */
export type JobCacheErrorCode =
  | 'BAD_JOB'
  | 'BAD_RETURN'
  | 'BAD_JOB_FILTER'
  | 'BAD_JOB_CACHE_OPTION'
  | 'BAD_JOB_CACHE_VALUE'
  | 'JOB_CACHE_CLOSED'
  | 'JOB_CACHE_IO'
  /** The returner that keeps the jobs lacks a function it was asked for. */
  | 'JOB_CACHE_FUNCTION'
  /** The job cache gave no jid for a publication (a returner without prep_jid): nothing is published. */
  | 'JOB_NOT_ALLOCATED';

/** A job cache that cannot store or find what it is asked to (SQLite, PostgreSQL or a returner). */
export class JobCacheError extends BrineError<JobCacheErrorCode> {}
