/**
 * The runner functions salt-api clients call, run in salt-api's process on the master's host
 * (as Salt's RunnerClient runs them): jobs.* over the job cache, jobs.active, manage.*,
 * cache.grains/cache.pillar over the master's minion data cache, doc.runner and doc.wheel.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BrineError } from '../core/errors';
import type { MasterConfig } from '../core/config';
import { LocalClient, type MasterAddress } from '../core/client/local-client';
import { openJobCache, type JobCacheConfig } from '../core/master/job-cache';
import type { KeyStore } from '../core/master/key-store';
import { JOB_RUNNERS } from '../cli/runners/jobs';
import { activeJobs } from '../cli/runners/jobs-active';
import type { ResolveTarget } from './acl';
import type { FunctionTable, JobRunner, MasterFunction } from './netapi';

/** The Salt release brine speaks for, as manage.versions compares it. */
export const SALT_VERSION = '3007.10';

export interface RunnerDeps {
  master: MasterConfig & MasterAddress;
  keys: KeyStore;
  jobs: JobRunner;
  resolveTarget: ResolveTarget;
  /** The wheel table, for doc.wheel. */
  wheels: () => FunctionTable;
}

/** One minion's entry of the master's minion data cache (grains and pillar), fresh from disk. */
export function minionData(cachedir: string, id: string): { grains?: Record<string, unknown>; pillar?: Record<string, unknown> } {
  try {
    return JSON.parse(readFileSync(join(cachedir, 'minions', id, 'data.json'), 'utf8')) as { grains?: Record<string, unknown> };
  } catch {
    return {};
  }
}

function kw(args: unknown[], kwargs: Record<string, unknown>, names: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  args.forEach((v, i) => {
    if (i < names.length) out[names[i]] = v;
  });
  for (const [k, v] of Object.entries(kwargs)) if (!k.startsWith('__')) out[k] = v;
  return out;
}

/** Version comparison as Salt's LooseVersion does it for plain dotted numbers. */
function compareVersions(a: string, b: string): number {
  const pa = a.split(/[.-]/).map((p) => (/^\d+$/.test(p) ? Number(p) : p));
  const pb = b.split(/[.-]/).map((p) => (/^\d+$/.test(p) ? Number(p) : p));
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const x = pa[i] ?? 0;
    const y = pb[i] ?? 0;
    if (x === y) continue;
    if (typeof x === 'number' && typeof y === 'number') return x < y ? -1 : 1;
    return String(x) < String(y) ? -1 : 1;
  }
  return 0;
}

export function runnerFunctions(deps: RunnerDeps): FunctionTable {
  const { master } = deps;
  const cachedir = master.cachedir;
  const table = new Map<string, MasterFunction>();
  const add = (name: string, doc: string, call: MasterFunction['call']) => table.set(name, { doc, call });

  const withCache = async <T>(use: (cache: Awaited<ReturnType<typeof openJobCache>>) => Promise<T>): Promise<T> => {
    const cache = await openJobCache(master as unknown as JobCacheConfig);
    try {
      return await use(cache);
    } finally {
      await cache.close();
    }
  };
  for (const [name, run] of Object.entries(JOB_RUNNERS)) {
    add(name, `\n    ${name} (see salt-run -d ${name})\n    `, (args, kwargs) => withCache((cache) => run({ cache, arg: args, kwargs: stripDunder(kwargs) })));
  }
  add('jobs.active', '\n    Return a report on all actively running jobs from a job id centric\n    perspective\n    ', async () =>
    withCache(async (cache) => {
      const client = await LocalClient.connect(master);
      try {
        return await activeJobs({ client, cache, timeoutMs: master.timeout * 1000, gatherMs: master.gather_job_timeout * 1000 });
      } finally {
        client.close();
      }
    }),
  );

  const status = async () => {
    const accepted = deps.keys.list('accepted') as string[];
    const res = accepted.length === 0 ? null : await deps.jobs.run({ tgt: '*', tgtType: 'glob', fun: 'test.ping', arg: [], user: 'salt-api' });
    const up = new Set(res?.returns.map((r) => r.id) ?? []);
    return { up: accepted.filter((id) => up.has(id)), down: accepted.filter((id) => !up.has(id)) };
  };
  add('manage.status', '\n    Print the status of all known salt minions\n    ', () => status());
  add('manage.up', '\n    Print a list of all of the minions that are up\n    ', async () => (await status()).up);
  add('manage.down', '\n    Print a list of all the down or unresponsive salt minions\n    ', async () => (await status()).down);
  add('manage.versions', '\n    Check the version of active minions\n    ', async () => {
    const res = await deps.jobs.run({ tgt: '*', tgtType: 'glob', fun: 'test.version', arg: [], user: 'salt-api' });
    const labels: Record<number, string> = { [-2]: 'Minion offline', [-1]: 'Minion requires update', 0: 'Up to date', 1: 'Minion newer than master', 2: 'Master' };
    const out: Record<string, unknown> = {};
    const answered = new Map((res?.returns ?? []).map((r) => [r.id, r.return]));
    for (const id of deps.keys.list('accepted') as string[]) {
      const v = answered.get(id);
      const cmp = typeof v === 'string' ? compareVersions(v, SALT_VERSION) : -2;
      const label = labels[typeof v === 'string' ? Math.sign(cmp) : -2];
      ((out[label] ??= {}) as Record<string, unknown>)[id] = typeof v === 'string' ? v : 'Minion offline';
    }
    out.Master = SALT_VERSION;
    return out;
  });

  const cached = (field: 'grains' | 'pillar') => async (args: unknown[], kwargs: Record<string, unknown>) => {
    const a = kw(args, kwargs, ['tgt', 'tgt_type']);
    const ids = deps.resolveTarget((a.tgt as string | string[]) ?? '*', typeof a.tgt_type === 'string' ? a.tgt_type : 'glob');
    const out: Record<string, unknown> = {};
    for (const id of [...ids].sort()) out[id] = minionData(cachedir, id)[field] ?? {};
    return out;
  };
  add('cache.grains', '\n    Return cached grains of the targeted minions.\n    ', cached('grains'));
  add('cache.pillar', '\n    Return cached pillars of the targeted minions.\n    ', cached('pillar'));

  const docs = (t: FunctionTable) => Object.fromEntries([...t.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([name, f]) => [name, f.doc]));
  add('doc.runner', '\n    Return all runner documentation\n    ', async () => docs(table));
  add('doc.wheel', '\n    Return all wheel documentation\n    ', async () => docs(deps.wheels()));
  return table;
}

function stripDunder(kwargs: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(kwargs)) if (!k.startsWith('__')) out[k] = v;
  return out;
}

