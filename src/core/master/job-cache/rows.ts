/**
 * What both backends share: checking input, turning jobs and returns into column values and back,
 * and the fnmatch part of a job filter (time bounds are done in SQL).
 */
import { JobCacheError } from './errors';
import { BrineError } from '../../errors';
import { fnmatch } from '../../targeting';
import { decodeValue, encodeValue } from './value-codec';
import type { JobFilter, JobInput, JobRecord, ReturnInput, StoredReturn } from './types';

function bad(code: 'BAD_JOB' | 'BAD_RETURN', message: string): never {
  throw new JobCacheError(code, message);
}

function isStringList(v: unknown): v is string[] {
  return Array.isArray(v) && v.every((s) => typeof s === 'string');
}

function checkDate(code: 'BAD_JOB' | 'BAD_RETURN', name: string, d: unknown): number {
  if (!(d instanceof Date) || !Number.isFinite(d.getTime())) bad(code, `${name} must be a valid Date`);
  return d.getTime();
}

function checkJid(code: 'BAD_JOB' | 'BAD_RETURN', jid: unknown): string {
  if (typeof jid !== 'string' || jid === '') bad(code, 'jid must be a non-empty string');
  return jid;
}

export interface JobRow {
  jid: string;
  tgt: string;
  tgt_type: string;
  fun: string;
  arg: string;
  user: string;
  minions: string;
  started_ms: number;
  metadata: string | null;
}

export interface ReturnRow {
  jid: string;
  id: string;
  fun: string;
  fun_args: string;
  ret: string;
  retcode: number;
  success: boolean;
  out: string | null;
  at_ms: number;
}

/** Column values for a job; throws `BrineError BAD_JOB` naming the bad field. */
export function jobRow(job: JobInput): JobRow {
  if (job === null || typeof job !== 'object') bad('BAD_JOB', 'a job must be an object');
  const jid = checkJid('BAD_JOB', job.jid);
  if (typeof job.tgt !== 'string' && !isStringList(job.tgt)) bad('BAD_JOB', 'tgt must be a string or a list of strings');
  if (typeof job.tgt_type !== 'string' || job.tgt_type === '') bad('BAD_JOB', 'tgt_type must be a non-empty string');
  if (typeof job.fun !== 'string' && !isStringList(job.fun)) bad('BAD_JOB', 'fun must be a string or a list of strings');
  if (!Array.isArray(job.arg)) bad('BAD_JOB', 'arg must be a list');
  if (typeof job.user !== 'string') bad('BAD_JOB', 'user must be a string');
  if (!isStringList(job.minions)) bad('BAD_JOB', 'minions must be a list of minion ids');
  return {
    jid,
    tgt: encodeValue(job.tgt),
    tgt_type: job.tgt_type,
    fun: encodeValue(job.fun),
    arg: encodeValue(job.arg),
    user: job.user,
    minions: encodeValue(job.minions),
    started_ms: checkDate('BAD_JOB', 'started', job.started),
    metadata: job.metadata === undefined ? null : encodeValue(job.metadata),
  };
}

/** Column values for a return; throws `BrineError BAD_RETURN` naming the bad field. */
export function returnRow(ret: ReturnInput): ReturnRow {
  if (ret === null || typeof ret !== 'object') bad('BAD_RETURN', 'a return must be an object');
  const jid = checkJid('BAD_RETURN', ret.jid);
  if (typeof ret.id !== 'string' || ret.id === '') bad('BAD_RETURN', 'id must be a non-empty minion id');
  if (typeof ret.fun !== 'string' && !isStringList(ret.fun)) bad('BAD_RETURN', 'fun must be a string or a list of strings');
  if (!Array.isArray(ret.fun_args)) bad('BAD_RETURN', 'fun_args must be a list');
  if (!Number.isSafeInteger(ret.retcode)) bad('BAD_RETURN', 'retcode must be an integer');
  if (typeof ret.success !== 'boolean') bad('BAD_RETURN', 'success must be a boolean');
  if (ret.out !== undefined && typeof ret.out !== 'string') bad('BAD_RETURN', 'out must be a string when given');
  return {
    jid,
    id: ret.id,
    fun: encodeValue(ret.fun),
    fun_args: encodeValue(ret.fun_args),
    ret: encodeValue(ret.return),
    retcode: ret.retcode,
    success: ret.success,
    out: ret.out ?? null,
    at_ms: checkDate('BAD_RETURN', 'at', ret.at),
  };
}

/** A stored job row (from either driver: PostgreSQL BIGINTs arrive as text). */
export function jobFromRow(row: Record<string, unknown>): JobRecord {
  const job: JobRecord = {
    jid: String(row.jid),
    tgt: decodeValue(String(row.tgt)) as string | string[],
    tgt_type: String(row.tgt_type),
    fun: decodeValue(String(row.fun)) as string | string[],
    arg: decodeValue(String(row.arg)) as unknown[],
    user: String(row.user),
    minions: decodeValue(String(row.minions)) as string[],
    started: new Date(Number(row.started_ms)),
  };
  if (typeof row.metadata === 'string') job.metadata = decodeValue(row.metadata);
  return job;
}

/** Stored return rows (in arrival order) as `{ [minion id]: return }`. */
export function returnsFromRows(rows: ReadonlyArray<Record<string, unknown>>): Record<string, StoredReturn> {
  const out: Record<string, StoredReturn> = {};
  for (const row of rows) {
    const stored: StoredReturn = {
      return: decodeValue(String(row.ret)),
      retcode: Number(row.retcode),
      // SQLite has no booleans: 0/1.
      success: row.success === true || row.success === 1,
      at: new Date(Number(row.at_ms)),
    };
    if (typeof row.out === 'string') stored.out = row.out;
    Object.defineProperty(out, String(row.id), { value: stored, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

function anyMatch(patterns: readonly string[] | undefined, names: string | string[]): boolean {
  if (patterns === undefined) return true;
  const list = typeof names === 'string' ? [names] : names;
  return patterns.some((p) => list.some((n) => fnmatch(p, n)));
}

/** Checks a filter; throws `BrineError BAD_JOB_FILTER`. Gives the time bounds in ms. */
export function filterBounds(filter: JobFilter): { from: number; to: number } {
  if (filter === null || typeof filter !== 'object') throw new JobCacheError('BAD_JOB_FILTER', 'a job filter must be an object');
  for (const key of ['fun', 'tgt'] as const) {
    if (filter[key] !== undefined && !isStringList(filter[key]))
      throw new JobCacheError('BAD_JOB_FILTER', `${key} must be a list of patterns`);
  }
  const bound = (name: string, d: Date | undefined, dflt: number): number => {
    if (d === undefined) return dflt;
    if (!(d instanceof Date) || !Number.isFinite(d.getTime())) throw new JobCacheError('BAD_JOB_FILTER', `${name} must be a valid Date`);
    return d.getTime();
  };
  return {
    from: bound('startedFrom', filter.startedFrom, Number.MIN_SAFE_INTEGER),
    to: bound('startedTo', filter.startedTo, Number.MAX_SAFE_INTEGER),
  };
}

/** The fnmatch half of a filter. A compound command (list of functions) matches when one does. */
export function matchesPatterns(job: JobRecord, filter: JobFilter): boolean {
  return anyMatch(filter.fun, job.fun) && anyMatch(filter.tgt, job.tgt);
}
