/**
 * `salt-run jobs.active`: the jobs running on the minions, as Salt's jobs.active finds them
 * (salt/runners/jobs.py): saltutil.running published to '*' and gathered as the salt CLI waits,
 * then one entry per jid:
 *
 *   {jid: {Function, Arguments, Target, Target-type, User, [Metadata], StartTime,
 *          Running: [{minion: pid}, ...], Returned: [minions whose return is in the job cache]}}
 */
import { BrineError } from '../core/errors';
import type { JobCache } from '../core/master/job-cache';
import type { LocalClient } from '../core/client/local-client';
import { JobWaiter } from '../core/client/local-client-wait';
import { setKey } from './job-format';
import { jidToTime } from '../core/protocol/jid';

export interface ActiveOptions {
  client: LocalClient;
  cache: JobCache;
  timeoutMs: number;
  gatherMs: number;
}

/** Salt's _format_job_instance over one entry of saltutil.running. */
export function formatRunningJob(job: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {
    Function: job.fun ?? 'unknown-function',
    Arguments: Array.isArray(job.arg) ? [...job.arg] : [],
    Target: job.tgt ?? 'unknown-target',
    'Target-type': job.tgt_type ?? 'list',
    User: job.user ?? 'root',
  };
  if ('metadata' in job) out.Metadata = job.metadata ?? {};
  else if (isMap(job.kwargs) && 'metadata' in job.kwargs) out.Metadata = job.kwargs.metadata ?? {};
  return out;
}

function isMap(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !Buffer.isBuffer(v);
}

/** Folds the minions' saltutil.running answers into Salt's jobs.active shape (without Returned). */
export function foldRunning(answers: Record<string, unknown>): Record<string, Record<string, unknown>> {
  const ret: Record<string, Record<string, unknown>> = {};
  for (const [minion, data] of Object.entries(answers)) {
    // A minion that raised or answered something else is skipped, as in Salt.
    if (!Array.isArray(data)) continue;
    for (const job of data) {
      if (!isMap(job) || (typeof job.jid !== 'string' && typeof job.jid !== 'number')) continue;
      const jid = String(job.jid);
      const running = { [minion]: job.pid ?? null };
      if (!Object.prototype.hasOwnProperty.call(ret, jid)) {
        setKey(ret, jid, { ...formatRunningJob(job), StartTime: jidToTime(jid), Running: [running], Returned: [] });
      } else {
        (ret[jid].Running as unknown[]).push(running);
      }
    }
  }
  return ret;
}

export async function activeJobs(o: ActiveOptions): Promise<Record<string, Record<string, unknown>>> {
  let pub;
  try {
    pub = await o.client.publish({ tgt: '*', tgtType: 'glob', fun: 'saltutil.running', arg: [] });
  } catch (err) {
    if (err instanceof BrineError && err.code === 'NO_MINIONS') return {};
    throw err;
  }
  const waiter = new JobWaiter(o.client, { timeoutMs: o.timeoutMs, gatherMs: o.gatherMs });
  waiter.add(pub);
  const answers: Record<string, unknown> = {};
  for (let ev = await waiter.next(); ev; ev = await waiter.next()) if (ev.kind === 'return') setKey(answers, ev.ret.id, ev.ret.return);
  const ret = foldRunning(answers);
  for (const jid of Object.keys(ret)) {
    const returns = await o.cache.getReturns(jid);
    const returned = ret[jid].Returned as string[];
    for (const minion of Object.keys(returns)) if (!returned.includes(minion)) returned.push(minion);
  }
  return ret;
}
