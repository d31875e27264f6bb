/**
 * The master job cache kept by a returner (Salt's `master_job_cache: <returner>`): every job and
 * return goes through the returner's job cache functions, called as Salt's master calls them
 * (salt/master.py, salt/utils/job.py, salt/daemons/masterapi.py, salt/runners/jobs.py):
 *
 *   publish        prep_jid(nocache=False, passed_jid=jid), then save_load(jid, load, minions)
 *                  (save_minions(jid, minions) instead when save_load takes no `minions`)
 *   return         returner(ret); a salt-call return (jid `req`) first gets a jid through
 *                  prep_jid and its load through save_load, as Salt's store_job does
 *   jobs.*         get_load(jid), get_jid(jid), get_jids()
 *   keep_jobs      clean_old_jobs(), when the returner has it (it reads keep_jobs itself)
 *
 * A missing function is what it is in Salt: no prep_jid fails the publication; no save_load, or
 * no returner, is an error line in the master log while jobs still run; no get_* fails the
 * runner with one line naming the returner and the function; no clean_old_jobs cleans nothing.
 * brine always gives prep_jid the jid (Salt's contract: a passed_jid is returned as it is).
 *
 *   const cache = new ReturnerJobCache(calls, log);   // calls: the `files` returner's functions
 *   await cache.saveJob({ jid, tgt: '*', tgt_type: 'glob', fun: 'test.ping', arg: [], user: 'root', minions, started });
 */
import { isJid, jidToDate } from '../../protocol/jid';
import { JobCacheError } from './errors';
import { filterBounds, matchesPatterns } from './rows';
import type { JobCache, JobFilter, JobInput, JobRecord, ReturnInput, StoredReturn } from './types';

/** The functions of one returner, as the plugin host reaches them. */
export interface JobCacheReturner {
  /** The returner's name (`master_job_cache`). */
  readonly name: string;
  has(fn: string): boolean;
  /** Whether `fn` takes a parameter of this name (or any keyword). */
  takes(fn: string, param: string): boolean;
  /** Calls `fn` with positional arguments, then keyword arguments (only those it takes). */
  call(fn: string, args: unknown[], kwargs?: Record<string, unknown>): Promise<unknown>;
  /** Releases what loading the returner opened. */
  close(): Promise<void>;
}

export interface ReturnerCacheLog {
  error(message: string): void;
}

/** Returns remembered to drop a repeated one (Salt's local_cache keeps the first return of a minion). */
const REMEMBERED_RETURNS = 100_000;

function isMap(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !Buffer.isBuffer(v);
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.map(String) : [];
}

/** A job as Salt's publication load (the clear_load save_load receives), without the minions. */
export function jobLoad(job: JobInput): Record<string, unknown> {
  return {
    jid: job.jid,
    tgt: job.tgt,
    tgt_type: job.tgt_type,
    fun: job.fun,
    arg: job.arg,
    user: job.user,
    ...(job.metadata === undefined ? {} : { metadata: job.metadata }),
  };
}

/** A stored load (get_load) as a job record; undefined for Salt's "not found" `{}`. */
function loadToJob(jid: string, load: unknown): JobRecord | undefined {
  if (!isMap(load) || Object.keys(load).length === 0) return undefined;
  const kwargs = isMap(load.kwargs) ? load.kwargs : {};
  const metadata = load.metadata ?? kwargs.metadata;
  // Salt's format_job_instance defaults for what a load lacks.
  return {
    jid,
    tgt: (load.tgt as string | string[] | undefined) ?? 'unknown-target',
    tgt_type: String(load.tgt_type ?? 'list'),
    fun: (load.fun as string | string[] | undefined) ?? 'unknown-function',
    arg: Array.isArray(load.arg) ? [...load.arg] : [],
    user: String(load.user ?? 'root'),
    minions: strings(load.Minions ?? load.minions),
    started: isJid(jid) ? jidToDate(jid) : new Date(Number.NaN),
    ...(metadata === undefined ? {} : { metadata }),
  };
}

/** One entry of get_jids: Salt's returners give format_jid_instance shapes, some the load itself. */
function listedToJob(jid: string, entry: unknown): JobRecord | undefined {
  if (!isMap(entry) || !('Function' in entry)) return loadToJob(jid, entry);
  return loadToJob(jid, {
    fun: entry.Function,
    arg: entry.Arguments,
    tgt: entry.Target,
    tgt_type: entry['Target-type'],
    user: entry.User,
    Minions: entry.Minions,
    ...(entry.Metadata === undefined ? {} : { metadata: entry.Metadata }),
  });
}

/** One minion's entry of get_jid (`{return, out}` as local_cache, or the full return). */
function storedReturn(jid: string, entry: unknown): StoredReturn {
  const r = isMap(entry) && 'return' in entry ? entry : { return: entry };
  const retcode = typeof r.retcode === 'number' ? r.retcode : 0;
  const stamp = typeof r._stamp === 'string' ? new Date(`${r._stamp}Z`) : undefined;
  return {
    return: r.return,
    retcode,
    success: typeof r.success === 'boolean' ? r.success : retcode === 0,
    at: stamp && Number.isFinite(stamp.getTime()) ? stamp : isJid(jid) ? jidToDate(jid) : new Date(Number.NaN),
    ...(typeof r.out === 'string' ? { out: r.out } : {}),
  };
}

export class ReturnerJobCache implements JobCache {
  readonly backend = 'returner';
  private readonly seen = new Set<string>();

  constructor(
    private readonly returner: JobCacheReturner,
    private readonly log: ReturnerCacheLog,
  ) {}

  private missing(fn: string): JobCacheError {
    // Salt's words (salt/utils/job.py), one line.
    return new JobCacheError('JOB_CACHE_FUNCTION', `Returner '${this.returner.name}' does not support function ${fn}`);
  }

  /** A function the caller cannot do without: its absence or its failure is thrown. */
  private async required(fn: string, args: unknown[], kwargs?: Record<string, unknown>): Promise<unknown> {
    if (!this.returner.has(fn)) throw this.missing(fn);
    try {
      return await this.returner.call(fn, args, kwargs);
    } catch (err) {
      throw new JobCacheError('JOB_CACHE_IO', `The ${this.returner.name} returner failed in ${fn}: ${message(err)}`, { cause: err });
    }
  }

  /** A function whose absence or failure Salt logs and goes on. */
  private async logged(fn: string, args: unknown[], kwargs?: Record<string, unknown>): Promise<void> {
    try {
      await this.required(fn, args, kwargs);
    } catch (err) {
      this.log.error(message(err));
    }
  }

  /** Salt's _prep_jid: without prep_jid the master cannot publish. */
  private async prepJid(jid: string): Promise<void> {
    if (!this.returner.has('prep_jid')) {
      throw new JobCacheError(
        'JOB_NOT_ALLOCATED',
        `Failed to allocate a jid: the master_job_cache returner '${this.returner.name}' has no prep_jid function`,
      );
    }
    await this.required('prep_jid', [], { nocache: false, passed_jid: jid });
  }

  private async saveLoad(jid: string, load: Record<string, unknown>, minions: string[]): Promise<void> {
    if (!this.returner.has('save_load')) {
      this.log.error(`The specified returner used for the master job cache "${this.returner.name}" does not have a save_load function!`);
      return;
    }
    if (this.returner.takes('save_load', 'minions')) return this.logged('save_load', [jid, load, minions]);
    await this.logged('save_load', [jid, load]);
    if (minions.length > 0 && this.returner.has('save_minions')) await this.logged('save_minions', [jid, minions]);
  }

  async saveJob(job: JobInput): Promise<void> {
    await this.prepJid(job.jid);
    await this.saveLoad(job.jid, jobLoad(job), job.minions);
  }

  async saveReturn(ret: ReturnInput): Promise<boolean> {
    const key = `${ret.jid}\0${ret.id}`;
    if (this.seen.has(key)) return false;
    // A salt-call return (jid `req`) reaches here with the jid JobService gave it, its load saved.
    const { jid } = ret;
    this.seen.add(key);
    if (this.seen.size > REMEMBERED_RETURNS) this.seen.delete(this.seen.values().next().value as string);
    // Salt's return load (AESFuncs._return).
    const load: Record<string, unknown> = {
      cmd: '_return',
      id: ret.id,
      jid,
      fun: ret.fun,
      fun_args: ret.fun_args,
      return: ret.return,
      retcode: ret.retcode,
      success: ret.success,
      ...(ret.out === undefined ? {} : { out: ret.out }),
    };
    await this.logged('returner', [load]);
    return true;
  }

  async saveReturns(rets: readonly ReturnInput[]): Promise<boolean[]> {
    const out: boolean[] = [];
    for (const ret of rets) out.push(await this.saveReturn(ret));
    return out;
  }

  async getJob(jid: string): Promise<JobRecord | undefined> {
    return loadToJob(jid, await this.required('get_load', [jid]));
  }

  async getReturns(jid: string): Promise<Record<string, StoredReturn>> {
    const returns = await this.required('get_jid', [jid]);
    const out: Record<string, StoredReturn> = {};
    if (!isMap(returns)) return out;
    for (const [id, entry] of Object.entries(returns)) {
      Object.defineProperty(out, id, { value: storedReturn(jid, entry), enumerable: true, writable: true, configurable: true });
    }
    return out;
  }

  async listJobs(filter: JobFilter = {}): Promise<JobRecord[]> {
    const { from, to } = filterBounds(filter);
    const listed = await this.required('get_jids', []);
    const jobs: JobRecord[] = [];
    if (!isMap(listed)) return jobs;
    for (const jid of Object.keys(listed).sort()) {
      const job = listedToJob(jid, listed[jid]);
      if (!job || !matchesPatterns(job, filter)) continue;
      const t = job.started.getTime();
      // A job whose jid is no time passes only when no time bound is asked for.
      if (Number.isNaN(t) ? filter.startedFrom !== undefined || filter.startedTo !== undefined : t < from || t > to) continue;
      jobs.push(job);
    }
    return jobs;
  }

  /** Salt's clean_old_jobs: called when the returner has it; it knows keep_jobs from its config. */
  async clean(): Promise<number> {
    if (!this.returner.has('clean_old_jobs')) return 0;
    const removed = await this.required('clean_old_jobs', []);
    return typeof removed === 'number' ? removed : 0;
  }

  close(): Promise<void> {
    return this.returner.close();
  }
}
