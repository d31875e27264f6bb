import { LocalClient, type MasterAddress } from '../core/client/local-client';
import { KeyStore } from '../core/master/key-store';
import { BrineError } from '../core/errors';
import { formatOutput, type Outputter } from './output';
import { formatHighstate, highstateOptionsOf } from './output/highstate';
import { CliError } from './errors';
import type { Io } from './salt';
import { openJobCache, type JobCacheConfig } from '../core/master/job-cache';
import { JOB_RUNNERS } from './runners/jobs';
import { isOutputter } from './output';
import { activeJobs } from './runners/jobs-active';
import { streamEvents } from './runners/state-event';
import { unpackArgs } from '../core/protocol/salt-args';
import { SALT_VERSION } from '../plugins/api/version';

/** A runner that prints as it goes (state.event) answers this instead of data to print. */
const STREAMED = Symbol('streamed');

export interface RunnerOptions {
  master: MasterAddress & JobCacheConfig & { pki_dir: string };
  fun: string;
  arg: unknown[];
  timeoutSec: number;
  /** Salt's gather_job_timeout, for the runners that wait for minions. */
  gatherJobTimeoutSec?: number;
  out: Outputter;
}

/** Pings every accepted minion and splits them by whether they answered, as Salt's manage runner does. */
async function status(master: RunnerOptions['master'], timeoutSec: number): Promise<{ up: string[]; down: string[] }> {
  const accepted = new KeyStore({ pkiDir: master.pki_dir }).list('accepted');
  if (accepted.length === 0) return { up: [], down: [] };
  const client = await LocalClient.connect(master);
  try {
    let pub;
    try {
      pub = await client.publish({ tgt: '*', tgtType: 'glob', fun: 'test.ping', arg: [] });
    } catch (err) {
      if (err instanceof BrineError && err.code === 'NO_MINIONS') return { up: [], down: accepted };
      throw err;
    }
    const up = new Set<string>();
    for await (const ret of client.returns(pub, timeoutSec * 1000)) up.add(ret.id);
    return { up: accepted.filter((id) => up.has(id)), down: accepted.filter((id) => !up.has(id)) };
  } finally {
    client.close();
  }
}

/** Salt's version order: numbers compared part by part (3007.10 > 3007.9 > 3006.x). */
function compareVersions(a: string, b: string): number {
  const pa = a.split(/[^0-9]+/).filter(Boolean).map(Number);
  const pb = b.split(/[^0-9]+/).filter(Boolean).map(Number);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return Math.sign(d);
  }
  return 0;
}

/**
 * Salt's manage.versions: `test.version` on every minion that answers, grouped by how it compares
 * with the master's version (the Salt release brine reproduces), then the master's own.
 */
async function versions(o: RunnerOptions): Promise<Record<string, unknown>> {
  const labels: Record<number, string> = { [-2]: 'Minion offline', [-1]: 'Minion requires update', 0: 'Up to date', 1: 'Minion newer than master' };
  const groups = new Map<number, Record<string, string | false>>();
  const client = await LocalClient.connect(o.master);
  try {
    let pub;
    try {
      pub = await client.publish({ tgt: '*', tgtType: 'glob', fun: 'test.version', arg: [] });
    } catch (err) {
      if (!(err instanceof BrineError && err.code === 'NO_MINIONS')) throw err;
    }
    if (pub) {
      for await (const ret of client.returns(pub, o.timeoutSec * 1000)) {
        const ok = ret.retcode === 0 && typeof ret.return === 'string' && ret.return !== '';
        const diff = ok ? compareVersions(ret.return as string, SALT_VERSION) : -2;
        if (!groups.has(diff)) groups.set(diff, {});
        groups.get(diff)![ret.id] = ok ? (ret.return as string) : false;
      }
    }
  } finally {
    client.close();
  }
  const result: Record<string, unknown> = {};
  for (const [diff, members] of groups) {
    result[labels[diff]] = Object.fromEntries(Object.keys(members).sort().map((id) => [id, members[id]]));
  }
  result.Master = SALT_VERSION;
  return result;
}

/** jobs.* read the master's job cache directly (SQLite in cachedir, or the shared PostgreSQL). */
async function withJobCache(o: RunnerOptions, fun: string): Promise<unknown> {
  const cache = await openJobCache(o.master);
  try {
    const { args, kwargs } = unpackArgs(o.arg);
    return await JOB_RUNNERS[fun]({ cache, arg: args, kwargs });
  } finally {
    await cache.close();
  }
}

async function jobsActive(o: RunnerOptions): Promise<unknown> {
  const cache = await openJobCache(o.master);
  try {
    const client = await LocalClient.connect(o.master);
    try {
      return await activeJobs({ client, cache, timeoutMs: o.timeoutSec * 1000, gatherMs: (o.gatherJobTimeoutSec ?? 10) * 1000 });
    } finally {
      client.close();
    }
  } finally {
    await cache.close();
  }
}

const RUNNERS: Record<string, (o: RunnerOptions, io: Io) => Promise<unknown>> = {
  'jobs.active': jobsActive,
  'state.event': async (o, io) => {
    await streamEvents({ sockDir: o.master.sock_dir, arg: o.arg }, (line) => io.out(line));
    return STREAMED;
  },
  'manage.status': (o) => status(o.master, o.timeoutSec),
  'manage.up': async (o) => (await status(o.master, o.timeoutSec)).up,
  'manage.down': async (o) => (await status(o.master, o.timeoutSec)).down,
  'manage.versions': versions,
  ...Object.fromEntries(Object.keys(JOB_RUNNERS).map((fun) => [fun, (o: RunnerOptions) => withJobCache(o, fun)])),
};

/** `salt-run FUN`: runner functions run on the master's host with the master's configuration. */
export async function runRunner(opts: RunnerOptions, io: Io): Promise<number> {
  const runner = RUNNERS[opts.fun];
  if (!runner) {
    throw new CliError(`'${opts.fun}' is not available.`, 1, { hint: `Runner functions here: ${Object.keys(RUNNERS).join(', ')}` });
  }
  let result = await runner(opts, io);
  if (result === STREAMED) return 0;
  let out = opts.out;
  // lookup_jid hands back {outputter, data} when the minion named an outputter (as Salt's does).
  if (isOutputterResult(result)) {
    const named = result.outputter;
    result = result.data;
    if (opts.out === 'nested' && named === 'highstate' && typeof result === 'object' && result !== null) {
      io.out(formatHighstate(result as Record<string, unknown>, highstateOptionsOf(opts.master as unknown as Record<string, unknown>, {})) + '\n');
      return 0;
    }
    if (opts.out === 'nested' && isOutputter(named)) out = named;
  }
  const text = formatOutput(out, result, {});
  if (text !== '') io.out(text.endsWith('\n') ? text : `${text}\n`);
  return 0;
}

function isOutputterResult(v: unknown): v is { outputter: string; data: unknown } {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && Object.keys(v).length === 2 && typeof (v as { outputter?: unknown }).outputter === 'string' && 'data' in v;
}
