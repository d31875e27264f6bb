/**
 * Jobs for salt-api's local clients and the master-side runners, over the same LocalClient and
 * JobWaiter the salt CLI uses: publish, then wait as Salt's LocalClient.cmd does (timeout, then find_job for the
 * minions still missing). Minions that never answer are left out of the return, as Salt's
 * `cmd` leaves them out.
 */
import { BrineError } from '../errors';
import { LocalClient, type MasterAddress, type Publication } from './local-client';
import { JobWaiter } from './local-client-wait';
import { batchSize } from './batch-size';

/** One job for the minions, as salt-api's local clients and runners publish it. */
export interface LocalJob {
  tgt: string | string[];
  tgtType: string;
  fun: string;
  arg: unknown[];
  user: string;
  timeoutSec?: number;
  /** Overrides the master's gather_job_timeout for this job. */
  gatherJobTimeoutSec?: number;
  ret?: string;
  delimiter?: string;
}

/** Publishes jobs and gathers their returns. */
export interface JobRunner {
  /** Publishes and waits; null when no minion matched. */
  run(job: LocalJob): Promise<{ jid: string; returns: Array<{ id: string; return: unknown; retcode: number }> } | null>;
  /** Publishes without waiting; null when no minion matched. */
  runAsync(job: LocalJob): Promise<{ jid: string; minions: string[] } | null>;
  /** Batch mode: `size` minions at a time, each return as it comes. */
  runBatch(job: LocalJob, size: string): AsyncIterable<{ id: string; return: unknown }>;
}

export interface LocalJobsOptions {
  master: MasterAddress;
  /** Salt's `timeout` and `gather_job_timeout`, in seconds. */
  timeoutSec: number;
  gatherJobTimeoutSec: number;
}

function isNoMinions(err: unknown): boolean {
  return err instanceof BrineError && err.code === 'NO_MINIONS';
}

export class LocalJobs implements JobRunner {
  constructor(private readonly opts: LocalJobsOptions) {}

  private waitOptions(job: LocalJob) {
    return {
      timeoutMs: (job.timeoutSec ?? this.opts.timeoutSec) * 1000,
      gatherMs: (job.gatherJobTimeoutSec ?? this.opts.gatherJobTimeoutSec) * 1000,
    };
  }

  private async publish(client: LocalClient, job: LocalJob, tgt = job.tgt, tgtType = job.tgtType): Promise<Publication | null> {
    try {
      return await client.publish({ tgt, tgtType, fun: job.fun, arg: job.arg, user: job.user, ret: job.ret, delimiter: job.delimiter });
    } catch (err) {
      if (isNoMinions(err)) return null;
      throw err;
    }
  }

  async run(job: LocalJob) {
    const client = await LocalClient.connect(this.opts.master);
    try {
      const pub = await this.publish(client, job);
      if (!pub) return null;
      const waiter = new JobWaiter(client, this.waitOptions(job));
      waiter.add(pub);
      const returns: Array<{ id: string; return: unknown; retcode: number }> = [];
      for (let ev = await waiter.next(); ev; ev = await waiter.next()) {
        if (ev.kind === 'return') returns.push({ id: ev.ret.id, return: ev.ret.return, retcode: ev.ret.retcode });
      }
      return { jid: pub.jid, returns };
    } finally {
      client.close();
    }
  }

  async runAsync(job: LocalJob) {
    const client = await LocalClient.connect(this.opts.master);
    try {
      const pub = await this.publish(client, job);
      return pub ? { jid: pub.jid, minions: pub.minions } : null;
    } finally {
      client.close();
    }
  }

  /** Salt's cmd_batch: ping the target, then keep `size` minions busy until all ran; yields each return. */
  async *runBatch(job: LocalJob, size: string): AsyncIterable<{ id: string; return: unknown }> {
    batchSize(size, 1);
    const client = await LocalClient.connect(this.opts.master);
    try {
      const ping = await this.publish(client, { ...job, fun: 'test.ping', arg: [] });
      if (!ping) return;
      const pinger = new JobWaiter(client, this.waitOptions(job));
      pinger.add(ping);
      const up: string[] = [];
      for (let ev = await pinger.next(); ev; ev = await pinger.next()) if (ev.kind === 'return') up.push(ev.ret.id);
      const todo = [...up].sort();
      const n = batchSize(size, up.length);
      const waiter = new JobWaiter(client, this.waitOptions(job));
      const active = new Set<string>();
      while (todo.length > 0 || active.size > 0) {
        const next = todo.splice(0, Math.max(0, n - active.size));
        if (next.length > 0) {
          const pub = await this.publish(client, job, next, 'list');
          if (pub) {
            next.forEach((id) => active.add(id));
            waiter.add({ ...pub, minions: next });
          }
        }
        if (active.size === 0) continue;
        const ev = await waiter.next();
        if (!ev) break;
        if (ev.kind === 'return') {
          active.delete(ev.ret.id);
          yield { id: ev.ret.id, return: ev.ret.return };
        } else {
          for (const m of ev.missing) active.delete(m.id);
        }
      }
    } finally {
      client.close();
    }
  }
}
