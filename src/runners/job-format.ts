/**
 * Salt's job shapes for the jobs runner (salt/utils/jid.py, salt/runners/jobs.py) and the
 * runner's time arguments.
 */
import { RunnerArgError } from './errors';
import { isDeepStrictEqual } from 'node:util';
import { BrineError } from '../core/errors';
import { isJid, jidToDate, jidToTime } from '../core/protocol/jid';
import { MONTHS } from '../core/pycompat/time';
import type { JobRecord, StoredReturn } from '../core/master/job-cache';
import { unpackArgs } from '../core/protocol/salt-args';

/** Sets a key that may be any text (a minion id, a jid), `__proto__` included. */
export function setKey(obj: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
}

/**
 * The job's metadata: what `salt --metadata` put in the publication (stored with the job), else
 * a `metadata=` keyword in the job's arguments, which brine read before it kept the former.
 */
export function jobMetadata(job: JobRecord): unknown {
  if (job.metadata !== undefined) return job.metadata;
  const { kwargs } = unpackArgs(job.arg);
  return Object.prototype.hasOwnProperty.call(kwargs, 'metadata') ? kwargs.metadata : undefined;
}

/** Salt's format_jid_instance (+ `Minions`, as the runner's own version adds for list_job/print_job). */
export function formatJidInstance(jid: string, job: JobRecord | undefined, withMinions: boolean): Record<string, unknown> {
  if (!job) return { Error: 'Cannot contact returner or no job with this jid', StartTime: jidToTime(jid) };
  const out: Record<string, unknown> = {
    Function: job.fun,
    Arguments: [...job.arg],
    Target: job.tgt,
    'Target-type': job.tgt_type,
    User: job.user,
  };
  const metadata = jobMetadata(job);
  if (metadata !== undefined) out.Metadata = metadata;
  // local_cache's get_load sorts the minion list and leaves it out when empty.
  if (withMinions && job.minions.length > 0) out.Minions = [...job.minions].sort();
  out.StartTime = jidToTime(jid);
  return out;
}

/** local_cache's get_jid: `{minion: {return, retcode, success[, out]}}`. */
export function formatResult(returns: Record<string, StoredReturn>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [id, r] of Object.entries(returns)) {
    const entry: Record<string, unknown> = { return: r.return, retcode: r.retcode, success: r.success };
    if (r.out !== undefined) entry.out = r.out;
    setKey(out, id, entry);
  }
  return out;
}

/** Whether any key of `search` equals the job's metadata under that key (Salt's search_metadata). */
export function metadataMatches(job: JobRecord, search: Record<string, unknown>): boolean {
  const metadata = jobMetadata(job);
  if (metadata === null || typeof metadata !== 'object') return false;
  return Object.entries(search).some(
    ([k, v]) => Object.prototype.hasOwnProperty.call(metadata, k) && isDeepStrictEqual((metadata as Record<string, unknown>)[k], v),
  );
}

function badTime(name: string, value: unknown): never {
  throw new RunnerArgError('BAD_RUNNER_ARG', `${name}: cannot read ${JSON.stringify(String(value))} as a time`, {
    hint: "write it as '2026, Dec 02 13:13' (as StartTime prints), '2026-12-02 13:13:09', an ISO 8601 time or a jid; times without a zone are UTC",
  });
}

function utc(name: string, raw: unknown, y: string, mo: number, d: string, h?: string, mi?: string, s?: string, frac?: string): Date {
  const ms = frac === undefined ? 0 : Math.floor(Number(frac.padEnd(6, '0')) / 1000);
  const date = new Date(Date.UTC(Number(y), mo, Number(d), Number(h ?? 0), Number(mi ?? 0), Number(s ?? 0), ms));
  if (date.getUTCMonth() !== mo || date.getUTCDate() !== Number(d) || Number(h ?? 0) > 23 || Number(mi ?? 0) > 59 || Number(s ?? 0) > 59) {
    badTime(name, raw);
  }
  return date;
}

const SALT_TIME = /^(\d{4}),\s*([A-Za-z]{3})\s+(\d{1,2})(?:\s+(\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d{1,6}))?)?)?$/;
const ISO_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,6}))?)?)?\s*(Z|[+-]\d{2}:?\d{2})?$/i;

/**
 * A runner time argument (start_time, end_time) as a Date. Salt reads these with dateutil; the
 * forms here are the ones its docs and StartTime use. Times without a zone are UTC, as jids are.
 */
export function parseRunnerTime(name: string, value: unknown): Date {
  if (value instanceof Date) {
    if (!Number.isFinite(value.getTime())) badTime(name, value);
    return value;
  }
  // A jid given as key=value arrives from the CLI's YAML reading as a bigint.
  if (typeof value === 'bigint') value = String(value);
  if (typeof value !== 'string') badTime(name, value);
  const text = value.trim();
  if (isJid(text)) return jidToDate(text);
  let m = SALT_TIME.exec(text);
  if (m) {
    const mo = MONTHS.findIndex((x) => x.toLowerCase() === m![2].toLowerCase());
    if (mo < 0) badTime(name, value);
    return utc(name, value, m[1], mo, m[3], m[4], m[5], m[6], m[7]);
  }
  m = ISO_TIME.exec(text);
  if (!m) badTime(name, value);
  const date = utc(name, value, m[1], Number(m[2]) - 1, m[3], m[4], m[5], m[6], m[7]);
  const zone = m[8];
  if (zone === undefined || zone.toUpperCase() === 'Z') return date;
  const z = /^([+-])(\d{2}):?(\d{2})$/.exec(zone)!;
  const offsetMin = (z[1] === '-' ? -1 : 1) * (Number(z[2]) * 60 + Number(z[3]));
  return new Date(date.getTime() - offsetMin * 60_000);
}
