/**
 * The job cache's contract: every published job and every minion return, stored durably, so that
 * `salt-run jobs.*` can answer after the CLI has gone (Salt's `master_job_cache`).
 *
 * The SQLite cache answers synchronously (the master writes a return before it acknowledges it);
 * the PostgreSQL cache answers with promises. Callers `await` either.
 */

export type MaybePromise<T> = T | Promise<T>;

/** A published job, as the master saves it before publishing. */
export interface JobInput {
  jid: string;
  tgt: string | string[];
  tgt_type: string;
  /** A function name, or a list of them for a compound command. */
  fun: string | string[];
  arg: unknown[];
  user: string;
  /** The minions the master expects to answer. */
  minions: string[];
  started: Date;
  /** What `salt --metadata` gave the job (Salt's publication `metadata`); absent when nothing. */
  metadata?: unknown;
}

/** A job as read back from the cache. */
export type JobRecord = JobInput;

/** One minion's return, as the master saves it before acknowledging it. */
export interface ReturnInput {
  jid: string;
  /** The minion id. */
  id: string;
  fun: string | string[];
  fun_args: unknown[];
  return: unknown;
  retcode: number;
  success: boolean;
  at: Date;
  /** The outputter the minion asked for (Salt's `out`, e.g. `highstate`), when it named one. */
  out?: string;
}

/** One minion's stored return. */
export interface StoredReturn {
  return: unknown;
  retcode: number;
  success: boolean;
  at: Date;
  out?: string;
}

/**
 * Which jobs `listJobs` gives. Every given criterion must hold. `fun` and `tgt` are fnmatch
 * patterns, any of which may match (a list target matches when one of its names matches).
 */
export interface JobFilter {
  fun?: string[];
  tgt?: string[];
  /** Jobs started at or after this moment. */
  startedFrom?: Date;
  /** Jobs started at or before this moment. */
  startedTo?: Date;
}

/** `returner`: the jobs are kept by the returner `master_job_cache` names (returner-cache.ts). */
export type JobCacheBackend = 'sqlite' | 'postgres' | 'returner';

export interface JobCache {
  readonly backend: JobCacheBackend;
  /** Stores a job; saving the same jid again replaces it (as Salt's save_load overwrites). */
  saveJob(job: JobInput): MaybePromise<void>;
  /**
   * Stores a return. false = this minion had already returned for this jid: the extra return is
   * dropped, as Salt's local_cache does (a possible replay).
   */
  saveReturn(ret: ReturnInput): MaybePromise<boolean>;
  /** Stores several returns in one transaction (one commit); one boolean per return, as saveReturn. */
  saveReturns(rets: readonly ReturnInput[]): MaybePromise<boolean[]>;
  getJob(jid: string): MaybePromise<JobRecord | undefined>;
  /** Returns by minion id, in the order they arrived; `{}` for an unknown jid. */
  getReturns(jid: string): MaybePromise<Record<string, StoredReturn>>;
  /** Jobs in jid order. */
  listJobs(filter?: JobFilter): MaybePromise<JobRecord[]>;
  /**
   * Removes jobs started before `olderThan` with their returns, and returns older than it whose
   * job is not in the cache. Gives the number of jids removed.
   */
  clean(olderThan: Date): MaybePromise<number>;
  close(): MaybePromise<void>;
}
