/**
 * The runners built into the master functions, over the master's own stores: jobs.* over the job
 * cache (jobs.ts), jobs.active, and doc.* over the tables themselves. (manage.* and cache.* are
 * `@Runner` plugins under plugins/, written as a third party would.)
 */
import type { MasterConfig } from '../core/config';
import { LocalClient } from '../core/client/local-client';
import type { JobRunner as MinionJobs } from '../core/client/local-jobs';
import { openJobCache, type JobCache } from '../core/master/job-cache';
import { activeJobs } from './jobs-active';
import { JOB_RUNNERS } from './jobs';
import type { FunctionTable, MasterFunction } from './master-functions';

export interface BuiltinRunnerDeps {
  master: MasterConfig;
  jobs: MinionJobs;
  /** The complete tables (plugins included), for doc.runner and doc.wheel. */
  runners(): FunctionTable;
  wheels(): FunctionTable;
  /** Opens the master job cache (built-in or a returner's); default the built-in caches only. */
  openCache?: () => Promise<JobCache>;
}

/** Docstrings as Salt's (salt/runners/jobs.py, doc.py), shortened to their first paragraph and example. */
const DOCS: Record<string, string> = {
  'jobs.lookup_jid':
    '\n    Return the printout from a previously executed job\n\n    CLI Example:\n\n        salt-run jobs.lookup_jid 20130916125524463507\n        salt-run jobs.lookup_jid 20130916125524463507 --out=highstate\n    ',
  'jobs.list_job':
    '\n    List a specific job given by its jid\n\n    CLI Example:\n\n        salt-run jobs.list_job 20130916125524463507\n    ',
  'jobs.print_job':
    "\n    Print a specific job's detail given by its jid, including the return data.\n\n    CLI Example:\n\n        salt-run jobs.print_job 20130916125524463507\n    ",
  'jobs.list_jobs':
    "\n    List all detectable jobs and associated functions\n\n    CLI Example:\n\n        salt-run jobs.list_jobs\n        salt-run jobs.list_jobs search_function='test.*' search_target='localhost' search_metadata='{\"bar\": \"foo\"}'\n    ",
  'jobs.active':
    '\n    Return a report on all actively running jobs from a job id centric\n    perspective\n\n    CLI Example:\n\n        salt-run jobs.active\n    ',
  'doc.runner': '\n    Return all runner documentation\n\n    CLI Example:\n\n        salt-run doc.runner\n    ',
  'doc.wheel': '\n    Return all wheel documentation\n\n    CLI Example:\n\n        salt-run doc.wheel\n    ',
  'doc.execution':
    '\n    Collect all the sys.doc output from each minion and return the aggregate\n\n    CLI Example:\n\n        salt-run doc.execution\n    ',
};

function stripDunder(kwargs: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(kwargs)) if (!k.startsWith('__')) out[k] = v;
  return out;
}

function docsOf(table: FunctionTable): Record<string, string> {
  return Object.fromEntries([...table.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([name, f]) => [name, f.doc]));
}

export function builtinRunners(deps: BuiltinRunnerDeps): Map<string, MasterFunction> {
  const { master } = deps;
  const table = new Map<string, MasterFunction>();
  const add = (name: string, call: MasterFunction['call']) => table.set(name, { doc: DOCS[name] ?? '', call });

  const withCache = async <T>(use: (cache: JobCache) => Promise<T>): Promise<T> => {
    const cache = await (deps.openCache ? deps.openCache() : openJobCache({ ...master }));
    try {
      return await use(cache);
    } finally {
      await cache.close();
    }
  };
  for (const [name, run] of Object.entries(JOB_RUNNERS)) {
    add(name, (args, kwargs) => withCache((cache) => run({ cache, arg: args, kwargs: stripDunder(kwargs) })));
  }
  add('jobs.active', () =>
    withCache(async (cache) => {
      const client = await LocalClient.connect(master);
      try {
        return await activeJobs({ client, cache, timeoutMs: master.timeout * 1000, gatherMs: master.gather_job_timeout * 1000 });
      } finally {
        client.close();
      }
    }),
  );

  add('doc.runner', async () => docsOf(deps.runners()));
  add('doc.wheel', async () => docsOf(deps.wheels()));
  // Salt's doc.execution updates one dict with each minion's answer, so the last minion's
  // sys.doc is what it returns (every minion of a release has the same docs).
  add('doc.execution', async () => {
    const res = await deps.jobs.run({ tgt: '*', tgtType: 'glob', fun: 'sys.doc', arg: [], user: master.user });
    let docs: Record<string, unknown> = {};
    for (const r of res?.returns ?? [])
      if (typeof r.return === 'object' && r.return !== null && !Array.isArray(r.return)) docs = r.return as Record<string, unknown>;
    return docs;
  });
  return table;
}
