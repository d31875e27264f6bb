/**
 * The jobs runner (`salt-run jobs.*`), answering from the job cache in Salt 3007's shapes
 * (salt/runners/jobs.py over salt/returners/local_cache.py):
 *
 *   jobs.lookup_jid <jid> [missing=True] [returned=False]  -> {minion: return}
 *                        (or {outputter, data} when the returns name an outputter, e.g. highstate)
 *   jobs.list_job <jid>   -> {jid, Function, Arguments, Target, Target-type, User, Minions, StartTime, Result}
 *   jobs.print_job <jid>  -> {jid: {Function, ..., StartTime, Result}}
 *   jobs.list_jobs [search_function=..] [search_target=..] [search_metadata=..] [start_time=..] [end_time=..]
 *                         -> {jid: {Function, Arguments, Target, Target-type, User, StartTime}}
 *
 *   const result = await JOB_RUNNERS['jobs.lookup_jid']({ cache, arg: [jid], kwargs: {} });
 */
import { RunnerArgError } from './errors';
import type { JobCache, JobFilter } from '../core/master/job-cache';
import { formatJidInstance, formatResult, metadataMatches, parseRunnerTime, setKey } from './job-format';
import { unpackArgs } from '../core/protocol/salt-args';

export interface JobRunnerContext {
  cache: JobCache;
  /** Positional arguments; a trailing `{ __kwarg__: true, ... }` map (parseCliArgs) counts as kwargs. */
  arg: unknown[];
  kwargs: Record<string, unknown>;
}

export type JobRunner = (ctx: JobRunnerContext) => Promise<unknown>;

function bad(fun: string, message: string): never {
  throw new RunnerArgError('BAD_RUNNER_ARG', `${fun}: ${message}`, { hint: `see: salt-run -d ${fun}` });
}

/** Python-style binding of positional and keyword arguments to a runner's parameter names. */
function bind(fun: string, params: readonly string[], ctx: JobRunnerContext): Record<string, unknown> {
  if (ctx === null || typeof ctx !== 'object' || !Array.isArray(ctx.arg)) bad(fun, 'runner context needs an arg list');
  const { args: positional, kwargs: packed } = unpackArgs(ctx.arg);
  const kwargs: Record<string, unknown> = { ...(ctx.kwargs ?? {}), ...packed };
  if (positional.length > params.length) bad(fun, `takes at most ${params.length} positional arguments (${positional.length} given)`);
  const bound: Record<string, unknown> = {};
  positional.forEach((v, i) => (bound[params[i]] = v));
  for (const [k, v] of Object.entries(kwargs)) {
    if (k.startsWith('__')) continue; // Salt's own markers (__pub_*), not arguments
    if (!params.includes(k)) bad(fun, `got an unexpected keyword argument '${k}'`);
    if (k in bound) bad(fun, `got multiple values for argument '${k}'`);
    bound[k] = v;
  }
  if (bound.ext_source !== undefined && bound.ext_source !== null)
    bad(fun, 'ext_source is not supported: brine reads the master_job_cache only');
  return bound;
}

function jidArg(fun: string, v: unknown): string {
  // The CLI turns a 20-digit jid back into text; a number or bigint from elsewhere is taken too.
  if (typeof v === 'bigint' || (typeof v === 'number' && Number.isSafeInteger(v))) return String(v);
  if (typeof v !== 'string' || v === '') bad(fun, "missing or bad 'jid' (a job id such as 20261202131309576618)");
  return v;
}

function boolArg(fun: string, name: string, v: unknown, dflt: boolean): boolean {
  if (v === undefined || v === null) return dflt;
  if (typeof v === 'boolean') return v;
  if (typeof v === 'string' && /^(true|false)$/i.test(v)) return v.toLowerCase() === 'true';
  return bad(fun, `${name} must be True or False`);
}

/** Salt's split_input: a list, or comma-separated text. */
function patternsArg(fun: string, name: string, v: unknown): string[] | undefined {
  if (v === undefined || v === null || v === '') return undefined;
  if (Array.isArray(v)) return v.map((x) => String(x));
  if (typeof v === 'string') return v.split(',').map((x) => x.trim());
  if (typeof v === 'number') return [String(v)];
  return bad(fun, `${name} must be a pattern or a list of patterns`);
}

async function listJob(ctx: JobRunnerContext, fun = 'jobs.list_job'): Promise<Record<string, unknown>> {
  const a = bind(fun, ['jid', 'ext_source', 'display_progress'], ctx);
  return listJobOf(ctx.cache, jidArg(fun, a.jid));
}

async function listJobOf(cache: JobCache, jid: string): Promise<Record<string, unknown>> {
  const [job, returns] = await Promise.all([cache.getJob(jid), cache.getReturns(jid)]);
  return { jid, ...formatJidInstance(jid, job, true), Result: formatResult(returns) };
}

async function lookupJid(ctx: JobRunnerContext): Promise<unknown> {
  const fun = 'jobs.lookup_jid';
  const a = bind(fun, ['jid', 'ext_source', 'returned', 'missing', 'display_progress'], ctx);
  const jid = jidArg(fun, a.jid);
  const returned = boolArg(fun, 'returned', a.returned, true);
  const missing = boolArg(fun, 'missing', a.missing, false);
  const [job, returns] = await Promise.all([ctx.cache.getJob(jid), ctx.cache.getReturns(jid)]);
  const ret: Record<string, unknown> = {};
  if (returned) for (const [id, r] of Object.entries(returns)) setKey(ret, id, r.return);
  if (missing && job) {
    for (const id of [...job.minions].sort())
      if (!Object.prototype.hasOwnProperty.call(returns, id)) setKey(ret, id, 'Minion did not return');
  }
  // As Salt: the first return's `out` picks the outputter (highstate runs print as highstate).
  const first = Object.values(returns)[0];
  return first?.out ? { outputter: first.out, data: ret } : ret;
}

async function printJob(ctx: JobRunnerContext): Promise<unknown> {
  const fun = 'jobs.print_job';
  const a = bind(fun, ['jid', 'ext_source'], ctx);
  const { jid, ...rest } = await listJobOf(ctx.cache, jidArg(fun, a.jid));
  const out: Record<string, unknown> = {};
  setKey(out, String(jid), rest);
  return out;
}

async function listJobs(ctx: JobRunnerContext): Promise<unknown> {
  const fun = 'jobs.list_jobs';
  const a = bind(
    fun,
    ['ext_source', 'outputter', 'search_metadata', 'search_function', 'search_target', 'start_time', 'end_time', 'display_progress'],
    ctx,
  );
  const filter: JobFilter = {};
  const funs = patternsArg(fun, 'search_function', a.search_function);
  const targets = patternsArg(fun, 'search_target', a.search_target);
  if (funs) filter.fun = funs;
  if (targets) filter.tgt = targets;
  if (a.start_time !== undefined && a.start_time !== null && a.start_time !== '')
    filter.startedFrom = parseRunnerTime('start_time', a.start_time);
  if (a.end_time !== undefined && a.end_time !== null && a.end_time !== '') filter.startedTo = parseRunnerTime('end_time', a.end_time);
  const metadata = a.search_metadata;
  if (metadata !== undefined && metadata !== null && metadata !== '' && (typeof metadata !== 'object' || Array.isArray(metadata))) {
    bad(fun, 'search_metadata must be a dictionary, e.g. search_metadata=\'{"foo": "bar"}\'');
  }
  const out: Record<string, unknown> = {};
  for (const job of await ctx.cache.listJobs(filter)) {
    if (metadata && !metadataMatches(job, metadata as Record<string, unknown>)) continue;
    setKey(out, job.jid, formatJidInstance(job.jid, job, false));
  }
  if (a.outputter !== undefined && a.outputter !== null) {
    if (typeof a.outputter !== 'string') bad(fun, 'outputter must be the name of an outputter');
    return { outputter: a.outputter, data: out };
  }
  return out;
}

export const JOB_RUNNERS: Record<string, JobRunner> = {
  'jobs.lookup_jid': lookupJid,
  'jobs.list_job': (ctx) => listJob(ctx),
  'jobs.print_job': printJob,
  'jobs.list_jobs': listJobs,
};
