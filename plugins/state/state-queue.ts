/**
 * One state run at a time per minion, as Salt's state module keeps it (salt/modules/state.py
 * running, _prior_running_states, _check_queue): a state function called while another `state.*`
 * job runs on the minion is refused with Salt's message (retcode 1), unless `queue=True` (or the
 * `state_queue` option) makes it wait for the state jobs started before it, or `concurrent=True`
 * lets it run alongside.
 */
import { jidToTime, type IMinionControl, type RunningJob } from 'brine/plugin';

export interface QueueContext {
  /** The minion's jobs; none (brine/testing without a minion) means nothing else runs. */
  control: IMinionControl | undefined;
  /** This job's jid: it is never its own conflict. */
  jid: string;
  /** Aborts the wait when this job is killed. */
  signal: AbortSignal;
}

/** The other `state.*` jobs running now (Salt's saltutil.is_running('state.*')), oldest first. */
function stateJobs(ctx: QueueContext): RunningJob[] {
  return (ctx.control?.runningJobs() ?? []).filter((j) => j.jid !== ctx.jid && String(j.fun).startsWith('state.'));
}

/** Salt's state.running: one line per other state job, or none with `concurrent`. */
export function runningStates(ctx: QueueContext, concurrent = false): string[] {
  if (concurrent) return [];
  return stateJobs(ctx).map(
    (j) => `The function "${j.fun}" is running as PID ${j.pid} and was started at ${jidToTime(j.jid)} with jid ${j.jid}`,
  );
}

/** Salt's _prior_running_states: the state jobs whose jid is older than this one's. */
function priorStates(ctx: QueueContext): RunningJob[] {
  // salt-call's jid is not a number: every running state job came before it.
  const own = /^\d+$/.test(ctx.jid) ? BigInt(ctx.jid) : undefined;
  return stateJobs(ctx).filter((j) => /^\d+$/.test(j.jid) && (own === undefined || BigInt(j.jid) < own));
}

/** Salt's _wait: waits for the prior state jobs to end unless `maxQueue` of them are queued already. */
async function waitPrior(ctx: QueueContext, maxQueue: number): Promise<boolean> {
  let prior = priorStates(ctx);
  if (maxQueue && prior.length >= maxQueue) return false;
  let onAbort = (): void => undefined;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(ctx.signal.reason instanceof Error ? ctx.signal.reason : new Error('job aborted'));
    ctx.signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    while (prior.length > 0) {
      if (ctx.signal.aborted) onAbort();
      await Promise.race([Promise.all(prior.map((j) => ctx.control!.jobFinished(j.jid, ctx.signal))), aborted]);
      prior = priorStates(ctx);
    }
  } finally {
    ctx.signal.removeEventListener('abort', onAbort);
  }
  return true;
}

/**
 * Salt's _check_queue: `queue` True waits for the state jobs started earlier; a number N waits
 * too unless N are waiting already (0 waits always, as in Salt); otherwise a running state job
 * is a conflict: its lines are returned (the caller returns them with retcode 1).
 */
export async function checkQueue(ctx: QueueContext, queue: unknown, concurrent: boolean): Promise<string[] | undefined> {
  if (queue === true) {
    await waitPrior(ctx, 0);
    return undefined;
  }
  const queued = typeof queue === 'number' && Number.isInteger(queue) ? await waitPrior(ctx, queue) : false;
  if (queued) return undefined;
  const conflict = runningStates(ctx, concurrent);
  return conflict.length ? conflict : undefined;
}
