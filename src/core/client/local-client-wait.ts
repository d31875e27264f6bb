/**
 * The CLI's wait for returns, as Salt's LocalClient does it (get_iter_returns): wait `timeout`;
 * then ask the minions still missing with `saltutil.find_job <jid>` (one publication, tgt_type
 * list) and wait up to `gather_job_timeout` for their answers; a minion that reports the job
 * still running buys another `timeout`, and the question is asked again. When nobody reports it
 * running any more, the minions still missing are reported:
 *
 *   [Not connected]  the master held no session for it when the last find_job was published (it
 *                    has not signed in since the master started, or its key was deleted or
 *                    rejected since) and it did not answer find_job;
 *   [No response]    every other silent minion (a stopped minion still has its session until
 *                    the master restarts, so it shows here, as db1 does in Salt's own output).
 *
 * Several jobs can be waited for at once over one event-bus subscription (batch mode's sliding
 * window): add() a publication, then call next() until it answers null.
 *
 *   const waiter = new JobWaiter(client, { timeoutMs: 5000, gatherMs: 10000 });
 *   waiter.add(pub);
 *   for (let ev = await waiter.next(); ev; ev = await waiter.next()) ...
 */
import { ClientError } from './client-errors';
import { BrineError } from '../errors';
import { decode } from '../protocol/msgpack';
import { returnFromEvent, type JobEvent, type LocalClient, type NoReturnReason, type Publication, type WaitOptions } from './local-client';

interface Tracked {
  pub: Publication;
  waiting: Set<string>;
  returned: Set<string>;
  phase: 'wait' | 'gather';
  /** End of the current phase (ms since the epoch). */
  deadline: number;
  findJid?: string;
  findExpected: Set<string>;
  answered: Set<string>;
  running: Set<string>;
  notConnected: Set<string>;
}

const RET_TAG = /^salt\/job\/([^/]+)\/ret\/(.+)$/;

export class JobWaiter {
  private readonly jobs = new Map<string, Tracked>();
  /** find_job jid -> the job it asks about. */
  private readonly findJobs = new Map<string, Tracked>();
  private readonly ready: JobEvent[] = [];

  constructor(
    private readonly client: LocalClient,
    private readonly opts: WaitOptions,
  ) {
    for (const [name, v] of Object.entries(opts)) {
      if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) {
        throw new ClientError('BAD_WAIT_OPTION', `${name} must be a number of milliseconds >= 0, not ${String(v)}`);
      }
    }
  }

  /** Starts waiting for one publication's returns. */
  add(pub: Publication, now = Date.now()): void {
    const job: Tracked = {
      pub,
      waiting: new Set(pub.minions),
      returned: new Set(),
      phase: 'wait',
      deadline: now + this.opts.timeoutMs,
      findExpected: new Set(),
      answered: new Set(),
      running: new Set(),
      notConnected: new Set(),
    };
    this.jobs.set(pub.jid, job);
    if (job.waiting.size === 0) this.finish(job);
  }

  /** Jobs still being waited for. */
  get size(): number {
    return this.jobs.size;
  }

  /**
   * The next return or end of a job; null once no job is waited for, or when stopAt (ms since the
   * epoch) passes first (batch mode wakes up for --batch-wait that way).
   */
  async next(stopAt = Infinity): Promise<JobEvent | null> {
    for (;;) {
      const ev = this.ready.shift();
      if (ev) return ev;
      if (this.jobs.size === 0) return null;
      const now = Date.now();
      if (now >= stopAt) return null;
      let soonest = Infinity;
      for (const job of [...this.jobs.values()]) {
        if (job.deadline <= now) await this.onDeadline(job);
        else soonest = Math.min(soonest, job.deadline);
      }
      if (this.ready.length > 0 || this.jobs.size === 0) continue;
      // A deadline just handled set a new one: look again before blocking.
      if (soonest === Infinity) continue;
      const event = await this.client.nextEvent(Math.max(1, Math.min(soonest, stopAt) - Date.now()));
      if (event) this.route(event.tag, event.body);
    }
  }

  private route(tag: string, body: Buffer): void {
    const m = RET_TAG.exec(tag);
    if (!m) return;
    const [, jid, idFromTag] = m;
    const job = this.jobs.get(jid);
    if (job) {
      const ret = returnFromEvent(jid, idFromTag, body);
      if (job.returned.has(ret.id)) return; // Salt drops repeated returns too
      job.returned.add(ret.id);
      job.waiting.delete(ret.id);
      this.ready.push({ kind: 'return', ret });
      if (job.waiting.size === 0) this.finish(job);
      return;
    }
    const asked = this.findJobs.get(jid);
    if (!asked || asked.findJid !== jid) return;
    const ret = returnFromEvent(jid, idFromTag, body);
    asked.answered.add(ret.id);
    // saltutil.find_job answers the job's data while it runs, {} once it is gone.
    if (isRunningAnswer(ret.return)) asked.running.add(ret.id);
    if ([...asked.findExpected].every((id) => asked.answered.has(id))) asked.deadline = Date.now();
  }

  private async onDeadline(job: Tracked): Promise<void> {
    if (job.phase === 'wait') {
      await this.askFindJob(job);
      return;
    }
    const stillRunning = [...job.running].some((id) => job.waiting.has(id));
    if (stillRunning) {
      job.phase = 'wait';
      job.deadline = Date.now() + this.opts.timeoutMs;
      return;
    }
    this.finish(job);
  }

  private async askFindJob(job: Tracked): Promise<void> {
    const missing = [...job.waiting];
    let fj: Publication;
    try {
      fj = await this.client.publish({ tgt: missing, tgtType: 'list', fun: 'saltutil.find_job', arg: [job.pub.jid] });
    } catch (err) {
      // None of them has an accepted key any more: nobody can answer.
      if (err instanceof BrineError && err.code === 'NO_MINIONS') {
        this.finish(job);
        return;
      }
      throw err;
    }
    if (job.findJid) this.findJobs.delete(job.findJid);
    job.findJid = fj.jid;
    this.findJobs.set(fj.jid, job);
    job.findExpected = new Set(fj.minions);
    job.answered = new Set();
    job.running = new Set();
    job.notConnected = new Set(fj.notConnected);
    job.phase = 'gather';
    job.deadline = Date.now() + this.opts.gatherMs;
  }

  private finish(job: Tracked): void {
    this.jobs.delete(job.pub.jid);
    if (job.findJid) this.findJobs.delete(job.findJid);
    const missing = [...job.waiting].map((id) => ({ id, reason: reasonFor(job, id) }));
    this.ready.push({ kind: 'done', jid: job.pub.jid, missing });
  }
}

function reasonFor(job: Tracked, id: string): NoReturnReason {
  return job.notConnected.has(id) && !job.answered.has(id) ? 'Not connected' : 'No response';
}

function isRunningAnswer(v: unknown): boolean {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !Buffer.isBuffer(v) && Object.keys(v).length > 0;
}

/** Decodes an event's msgpack data as a map; {} for anything else. */
export function eventData(body: Buffer): Record<string, unknown> {
  try {
    const v = decode(body);
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
