/**
 * `salt -b N|N% TARGET FUN`: Salt's batch mode (salt/cli/batch.py). The target is pinged first
 * (test.ping) to learn who is up; those that do not answer get "Minion X did not respond. No job
 * will be sent."; then the job runs on at most N minions at a time, and a new minion starts as
 * soon as one finishes (a sliding window, not waves), after --batch-wait seconds if given. Each
 * start prints "Executing run on [...]", each return prints as Salt prints it ({jid, retcode,
 * id: return}). The exit code is Salt's: the highest get_retcode() over the returns.
 */
import { BrineError } from '../core/errors';
import { LocalClient, type MinionReturn, type Publication } from '../core/client/local-client';
import { JobWaiter } from '../core/client/local-client-wait';
import { batchSize } from '../core/client/batch-size';
import { noReturnMessage } from './output';
import { CliError } from './errors';
import type { Io, SaltOptions } from './salt';
import { BatchProgress } from './batch-progress';
import { pyRepr } from './output';

const EX_NO_MATCH = 2;

/** Salt's salt.utils.job.get_retcode over the displayed return (retcode merged into dict returns). */
export function batchRetcode(ret: MinionReturn): number {
  const r = ret.return;
  if (typeof r === 'object' && r !== null && !Array.isArray(r) && !Buffer.isBuffer(r)) {
    const rc = 'retcode' in r ? (r as Record<string, unknown>).retcode : ret.retcode;
    return typeof rc === 'number' && rc !== 0 ? rc : 0;
  }
  return r === false ? 1 : 0;
}

export interface BatchOptions extends SaltOptions {
  batch: string;
  batchWaitSec: number;
}

export async function runBatch(
  opts: BatchOptions,
  io: Io,
  print: (text: string) => void,
  format: (data: Record<string, unknown>, outputter?: string) => string,
): Promise<number> {
  if (!Number.isFinite(opts.batchWaitSec) || opts.batchWaitSec < 0)
    throw new CliError(`--batch-wait must be a number of seconds >= 0, not ${opts.batchWaitSec}`, 64);
  batchSize(opts.batch, 1); // a malformed -b is refused before anything is published
  const tgt = opts.tgtType === 'list' ? opts.tgt.split(',').filter((s) => s !== '') : opts.tgt;
  const waitOpts = { timeoutMs: opts.timeoutSec * 1000, gatherMs: opts.gatherJobTimeoutSec * 1000 };
  const client = await LocalClient.connect(opts.master);
  try {
    // Who is up: Salt's gather_minions pings the target and waits as a normal job does.
    let ping: Publication;
    try {
      ping = await client.publish({ tgt, tgtType: opts.tgtType, fun: 'test.ping', arg: [], delimiter: opts.delimiter });
    } catch (err) {
      if (err instanceof BrineError && err.code === 'NO_MINIONS') {
        io.out('No minions matched the target.\n');
        return EX_NO_MATCH;
      }
      throw err;
    }
    const pinger = new JobWaiter(client, waitOpts);
    pinger.add(ping);
    const up: string[] = [];
    for (let ev = await pinger.next(); ev; ev = await pinger.next()) if (ev.kind === 'return') up.push(ev.ret.id);
    const down = ping.minions.filter((id) => !up.includes(id)).sort();
    for (const id of down) io.out(`Minion ${id} did not respond. No job will be sent.\n`);
    if (up.length === 0) return 0;
    const size = batchSize(opts.batch, up.length);

    const toRun = [...up].sort();
    const active = new Set<string>();
    /** When each slot held by --batch-wait frees up again. */
    let waits: number[] = [];
    const silent: string[] = [];
    let finished = 0;
    let retcode = 0;
    const progress = io.errIsTty ? new BatchProgress(up.length, (t) => io.err(t)) : undefined;
    const waiter = new JobWaiter(client, waitOpts);

    while (finished < up.length) {
      const now = Date.now();
      waits = waits.filter((t) => t > now);
      const free = size - active.size - waits.length;
      const next = toRun.splice(0, Math.max(0, Math.min(free, toRun.length)));
      if (next.length > 0) {
        io.out(`\nExecuting run on ${pyRepr(next)}\n\n`);
        let pub: Publication | undefined;
        try {
          pub = await client.publish({ tgt: next, tgtType: 'list', fun: opts.fun, arg: opts.arg, ret: opts.ret, metadata: opts.metadata });
        } catch (err) {
          // Their keys went away between the ping and now: nobody can run it.
          if (!(err instanceof BrineError && err.code === 'NO_MINIONS')) throw err;
        }
        if (pub) {
          for (const id of next) active.add(id);
          waiter.add({ ...pub, minions: next });
        } else {
          silent.push(...next);
          finished += next.length;
        }
      }
      progress?.draw(finished, active.size);
      const ev = await waiter.next(waits.length > 0 ? Math.min(...waits) : Infinity);
      if (!ev) continue; // a --batch-wait slot freed up, or nothing is running yet
      const ids = ev.kind === 'return' ? [ev.ret.id] : ev.missing.map((m) => m.id);
      for (const id of ids) {
        if (!active.delete(id)) continue;
        finished += 1;
        if (opts.batchWaitSec > 0) waits.push(Date.now() + opts.batchWaitSec * 1000);
      }
      if (ev.kind === 'return') {
        // The outputter the return names (highstate for state functions), as Salt's batch passes `out`.
        print(format(batchDisplay(ev.ret), ev.ret.out));
        retcode = Math.max(retcode, batchRetcode(ev.ret));
        // --failhard: the first minion that fails ends the batch run, as Salt's Batch.run.
        if (opts.failhard && ev.ret.retcode > 0) {
          progress?.done(finished);
          io.err(`[ERROR   ] Minion ${ev.ret.id} returned with non-zero exit code. Batch run stopped due to failhard\n`);
          return Math.max(retcode, ev.ret.retcode);
        }
      } else {
        for (const m of ev.missing) {
          silent.push(m.id);
          print(format({ [m.id]: noReturnMessage(ev.jid, m.reason) }));
        }
      }
    }
    progress?.done(finished);
    const unreachable = [...down, ...silent].sort();
    if (unreachable.length > 0) io.err(`Minions that did not return: ${unreachable.join(', ')}\n`);
    return retcode;
  } finally {
    client.close();
  }
}

/** What Salt's batch displays for one return: {retcode, jid, id: return}, retcode merged into a dict return. */
function batchDisplay(ret: MinionReturn): Record<string, unknown> {
  let value = ret.return;
  if (typeof value === 'object' && value !== null && !Array.isArray(value) && !Buffer.isBuffer(value) && !('retcode' in value)) {
    value = { ...(value as Record<string, unknown>), retcode: ret.retcode };
  }
  return { retcode: ret.retcode, jid: ret.jid, [ret.id]: value };
}
