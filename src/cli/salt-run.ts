import type { MasterAddress } from '../core/client/local-client';
import { LocalJobs } from '../core/client/local-jobs';
import { KeyStore } from '../core/master/key-store';
import type { PillarPlugins } from '../core/master/pillar-service';
import type { MasterConfig } from '../core/config';
import type { Logger } from '../core/log';
import { formatOutput, type Outputter } from './output';
import { formatHighstate, highstateOptionsOf } from './output/highstate';
import { getColors } from './output/colors';
import { CliError } from './errors';
import type { Io } from './salt';
import type { JobCacheConfig } from '../core/master/job-cache';
import { isOutputter } from './output';
import { streamEvents } from './runners/state-event';
import { unpackArgs } from '../core/protocol/salt-args';
import { MasterFunctions } from '../runners/master-functions';

/** A runner that prints as it goes (state.event) answers this instead of data to print. */
const STREAMED = Symbol('streamed');

export interface RunnerOptions {
  master: MasterConfig & MasterAddress & JobCacheConfig;
  fun: string;
  arg: unknown[];
  timeoutSec: number;
  /** Salt's gather_job_timeout, for the runners that wait for minions. */
  gatherJobTimeoutSec?: number;
  out: Outputter;
  /** Print in Salt's colours (see output/colors.ts useColor). */
  color?: boolean;
  /** The master's plugins for the runners that compile pillar (pillar.show_pillar), as the master has them. */
  pillarPlugins?: PillarPlugins;
  /** Where the command logs (--log-file) besides its warnings on stderr; default nowhere. */
  log?: Pick<Logger, 'debug' | 'info' | 'warning' | 'error'>;
}

/**
 * The master functions salt-run offers: the runners (built-in and `@Runner` plugins, see
 * MasterFunctions) plus state.event, which prints as it goes.
 */
async function runners(o: RunnerOptions): Promise<Map<string, (o: RunnerOptions, io: Io) => Promise<unknown>>> {
  const master = { ...o.master, timeout: o.timeoutSec, gather_job_timeout: o.gatherJobTimeoutSec ?? o.master.gather_job_timeout ?? 10 };
  const jobs = new LocalJobs({ master, timeoutSec: master.timeout, gatherJobTimeoutSec: master.gather_job_timeout });
  const logger = {
    debug: (m: string) => o.log?.debug(m),
    info: (m: string) => o.log?.info(m),
    warning: (m: string) => {
      o.log?.warning(m);
      process.stderr.write(`[WARNING ] ${m}\n`);
    },
    error: (m: string) => {
      o.log?.error(m);
      process.stderr.write(`[ERROR   ] ${m}\n`);
    },
  };
  const keys = new KeyStore({ pkiDir: master.pki_dir });
  const functions = await MasterFunctions.load({ master, keys, jobs, logger, pillarPlugins: o.pillarPlugins });
  const table = new Map<string, (o: RunnerOptions, io: Io) => Promise<unknown>>();
  for (const [name, f] of functions.runners) {
    table.set(name, (opts) => {
      const { args, kwargs } = unpackArgs(opts.arg);
      return f.call(args, kwargs, { user: master.user });
    });
  }
  table.set('state.event', async (opts, io) => {
    await streamEvents({ sockDir: opts.master.sock_dir, arg: opts.arg }, (line) => io.out(line));
    return STREAMED;
  });
  return table;
}

/** `salt-run FUN`: runner functions run on the master's host with the master's configuration. */
export async function runRunner(opts: RunnerOptions, io: Io): Promise<number> {
  const table = await runners(opts);
  const runner = table.get(opts.fun);
  if (!runner) {
    throw new CliError(`'${opts.fun}' is not available.`, 1, { hint: `Runner functions here: ${[...table.keys()].sort().join(', ')}` });
  }
  opts.log?.debug(`Running runner ${opts.fun}`);
  let result = await runner(opts, io);
  if (result === STREAMED) return 0;
  let out = opts.out;
  let code = 0;
  // lookup_jid hands back {outputter, data} when the minion named an outputter (as Salt's does);
  // state.orchestrate {data, outputter, retcode}, and salt-run exits with that retcode.
  if (isOutputterResult(result)) {
    const named = result.outputter;
    code = typeof result.retcode === 'number' ? result.retcode : 0;
    result = result.data;
    if (opts.out === 'nested' && named === 'highstate' && typeof result === 'object' && result !== null) {
      io.out(
        formatHighstate(result as Record<string, unknown>, {
          ...highstateOptionsOf(opts.master as unknown as Record<string, unknown>, {}),
          colors: getColors(opts.color === true),
        }) + '\n',
      );
      return code;
    }
    if (opts.out === 'nested' && isOutputter(named)) out = named;
  }
  const text = formatOutput(out, result, { color: opts.color });
  if (text !== '') io.out(text.endsWith('\n') ? text : `${text}\n`);
  return code;
}

function isOutputterResult(v: unknown): v is { outputter: string; data: unknown; retcode?: number } {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const keys = Object.keys(v);
  return (
    typeof (v as { outputter?: unknown }).outputter === 'string' &&
    'data' in v &&
    (keys.length === 2 || (keys.length === 3 && typeof (v as { retcode?: unknown }).retcode === 'number'))
  );
}
