import { appendFileSync, writeFileSync } from 'node:fs';
import { BrineError } from '../core/errors';
import type { Logger } from '../core/log';
import { LocalClient, type MasterAddress, type MinionReturn } from '../core/client/local-client';
import { JobWaiter } from '../core/client/local-client-wait';
import { checkTarget, type TargetType } from '../core/targeting';
import { formatNoReturn, formatOutput, isOutputter, noReturnMessage, type Outputter } from './output';
import { getColors } from './output/colors';
import { highstateOptionsOf, type HighstateOptions } from './output/highstate-options';
import { CliError, EXIT_USAGE } from './errors';
import { noParseNames, parseCliArgs } from './args';
import { clientLogging, loadMasterForCli } from './context';
import { useColor } from './output/colors';
import { yamlifyArg } from '../core/pycompat/yamlify';
import { stateVerboseFlag, TARGET_TYPE_FLAGS, type ParsedFlags, type SALT } from './flag-specs';

export interface SaltOptions {
  master: MasterAddress & { nodegroups?: Record<string, string | string[]>; pki_dir?: string };
  tgt: string;
  tgtType: TargetType;
  fun: string;
  arg: unknown[];
  timeoutSec: number;
  /** Salt's gather_job_timeout: how long the find_job question waits for answers. */
  gatherJobTimeoutSec: number;
  /** --out; unset = the outputter each return names (highstate for state runs), else nested. */
  out?: Outputter;
  /** How the highstate outputter prints (flags over the master config's state_output...). */
  highstate?: HighstateOptions;
  outFile?: string;
  outIndent?: number;
  static: boolean;
  async: boolean;
  showJid: boolean;
  verbose: boolean;
  delimiter?: string;
  ret?: string;
  /** `--metadata`: stored with the job, returned by the minions (a YAML value, as Salt reads it). */
  metadata?: unknown;
  /** --hide-timeout: leave out the minions that did not return. */
  hideTimeout?: boolean;
  /** --summary: counts after the returns. */
  summary?: boolean;
  /** -b/--batch-size: "N" or "N%" minions at a time. */
  batch?: string;
  /** --subset N: run on N random minions of the target that have the function. */
  subset?: number;
  /** --failhard: stop a batch run at the first minion that returns a non-zero retcode. */
  failhard?: boolean;
  /** --batch-wait: seconds to wait after a minion returns before starting the next one. */
  batchWaitSec?: number;
  /** --batch-safe-limit (or batch_safe_limit): a target matching at least this many runs in batches... */
  batchSafeLimit?: number;
  /** ...of --batch-safe-size (or batch_safe_size) minions. */
  batchSafeSize?: string;
  /** --preview-target: print the matched minions and run nothing. */
  previewTarget?: boolean;
  /** Print in Salt's colours (see output/colors.ts useColor). */
  color?: boolean;
  /** Where the command logs (--log-file); default nowhere. */
  log?: Pick<Logger, 'debug' | 'warning'>;
}

export interface Io {
  out(text: string): void;
  err(text: string): void;
  /** Whether stderr is a terminal (batch mode draws a progress bar there). */
  errIsTty?: boolean;
}

/** Salt's exit codes (salt/defaults/exitcodes.py). */
const EX_OK = 0;
const EX_GENERIC = 1;
const EX_NO_MATCH = 2;

/**
 * `salt TARGET FUN ARGS...`: checks the target, publishes through the master, prints each return
 * as it arrives, and answers with Salt's exit code.
 */
export async function runSalt(opts: SaltOptions, io: Io): Promise<number> {
  const tgt = opts.tgtType === 'list' ? opts.tgt.split(',').filter((s) => s !== '') : opts.tgt;
  try {
    checkTarget({ tgt, tgtType: opts.tgtType, delimiter: opts.delimiter }, { nodegroups: opts.master.nodegroups });
  } catch (err) {
    throw new CliError((err as Error).message, EX_NO_MATCH);
  }
  if (opts.subset !== undefined) {
    if (!Number.isInteger(opts.subset) || opts.subset < 1)
      throw new CliError(`--subset needs a number of minions >= 1, got ${opts.subset}`, 64);
    const chosen = await pickSubset(opts, tgt, opts.subset);
    if (chosen.length === 0) return noMinions(io);
    return runSalt({ ...opts, subset: undefined, tgt: chosen.join(','), tgtType: 'list' }, io);
  }
  const print = (text: string) => {
    if (text === '') return;
    const line = text.endsWith('\n') ? text : `${text}\n`;
    if (opts.outFile) appendFileSync(opts.outFile, line);
    else io.out(line);
  };
  if (opts.outFile) writeFileSync(opts.outFile, '');
  // As Salt's CLI: without --out, a return that names its outputter (state runs: highstate) is printed with it.
  const format = (data: Record<string, unknown>, named?: string, retcode?: number): string => {
    if (!opts.out && named === 'no_return') return formatNoReturn(data, opts.color === true);
    const out = opts.out ?? (named === 'highstate' || (named !== undefined && isOutputter(named)) ? named : 'nested');
    if (out === 'highstate') {
      // Loaded for a state run's returns only, as batch.ts for -b: each module is a part of the CLI's peak memory.
      const { formatHighstate } = require('./output/highstate') as typeof import('./output/highstate');
      return formatHighstate(data, { ...opts.highstate, colors: getColors(opts.color === true) }) + '\n';
    }
    return formatOutput(out, data, { indent: opts.outIndent, static: true, color: opts.color, retcode });
  };

  if (opts.previewTarget) {
    // Salt's _preview_target: the master's view of the target, printed with the outputter.
    const text = formatOutput(opts.out ?? 'nested', previewTarget(opts, tgt), { indent: opts.outIndent, static: true, color: opts.color });
    io.out(text.endsWith('\n') ? text : `${text}\n`);
    return EX_OK;
  }
  if (opts.batch === undefined && (opts.batchSafeLimit ?? 0) > 1 && previewTarget(opts, tgt).length >= opts.batchSafeLimit!) {
    io.out('\nNOTICE: Too many minions targeted, switching to batch execution.\n');
    opts = { ...opts, batch: opts.batchSafeSize ?? '8' };
  }
  if (opts.batch !== undefined) {
    return (require('./batch') as typeof import('./batch')).runBatch(
      { ...opts, batch: opts.batch, batchWaitSec: opts.batchWaitSec ?? 0 },
      io,
      print,
      format,
    );
  }

  const client = await LocalClient.connect(opts.master);
  try {
    let pub;
    try {
      pub = await client.publish({
        tgt,
        tgtType: opts.tgtType,
        fun: opts.fun,
        arg: opts.arg,
        delimiter: opts.delimiter,
        ret: opts.ret,
        metadata: opts.metadata,
      });
    } catch (err) {
      if (err instanceof BrineError && err.code === 'NO_MINIONS') return noMinions(io);
      throw err;
    }
    opts.log?.debug(
      `Published ${opts.fun} to ${JSON.stringify(opts.tgt)} (${opts.tgtType}) with jid ${pub.jid}, expecting ${pub.minions.length} minion(s)`,
    );
    if (opts.async) {
      io.out(`Executed command with job ID: ${pub.jid}\n`);
      return EX_OK;
    }
    if (opts.verbose) io.out(`Executing job with jid ${pub.jid}\n-------------------------------------------\n\n`);
    else if (opts.showJid) io.out(`jid: ${pub.jid}\n`);

    let failed = false;
    const collected: Record<string, unknown> = {};
    const results: Record<string, unknown> = {};
    let collectedOut: string | undefined;
    const show = (id: string, value: unknown, named?: string, retcode?: number) => {
      results[id] = value;
      if (opts.static) {
        collected[id] = value;
        collectedOut ??= named;
      } else print(format({ [id]: value }, named, retcode));
    };
    const waiter = new JobWaiter(client, { timeoutMs: opts.timeoutSec * 1000, gatherMs: opts.gatherJobTimeoutSec * 1000 });
    waiter.add(pub);
    const failures = new Set<string>();
    let missing: Array<{ id: string; reason: 'No response' | 'Not connected' }> = [];
    for (let ev = await waiter.next(); ev; ev = await waiter.next()) {
      if (ev.kind === 'done') {
        missing = ev.missing;
        continue;
      }
      if (isFailure(ev.ret)) {
        failed = true;
        failures.add(ev.ret.id);
      }
      opts.log?.debug(`Got return from ${ev.ret.id} for job ${pub.jid} (retcode ${ev.ret.retcode})`);
      show(ev.ret.id, ev.ret.return, ev.ret.out, ev.ret.retcode);
    }
    // --hide-timeout leaves them out entirely, and so out of the exit code (as Salt's show_timeout=False).
    if (!opts.hideTimeout) {
      for (const m of missing) {
        opts.log?.warning(`Minion ${m.id} did not return for job ${pub.jid} [${m.reason}]`);
        show(m.id, noReturnMessage(pub.jid, m.reason), 'no_return');
      }
      if (missing.length > 0) failed = true;
    }
    if (opts.static) print(format(collected, collectedOut));
    if (opts.summary) io.out(summaryText(results, failures, opts.hideTimeout ? [] : missing, opts.verbose));
    if (failed) {
      io.err('ERROR: Minions returned with non-zero exit code\n');
      return EX_GENERIC;
    }
    return EX_OK;
  } finally {
    client.close();
  }
}

function noMinions(io: Io): number {
  io.out('No minions matched the target. No command was sent, no jid was assigned.\n');
  io.err('ERROR: No return received\n');
  return EX_NO_MATCH;
}

/** The accepted minions the target matches, from the master's key store and minion data cache (loaded only here). */
function previewTarget(opts: SaltOptions, tgt: string | string[]): string[] {
  const { KeyStore } = require('../core/master/key-store') as typeof import('../core/master/key-store');
  const { targetResolver } = require('../core/master/target-preview') as typeof import('../core/master/target-preview');
  const { master } = opts;
  if (master.pki_dir === undefined) throw new CliError('the master config gives no pki_dir: the target cannot be previewed', 64);
  return [
    ...targetResolver({ cachedir: master.cachedir, nodegroups: master.nodegroups ?? {} }, new KeyStore({ pkiDir: master.pki_dir }))(
      tgt,
      opts.tgtType,
    ),
  ].sort();
}

/**
 * Salt's cmd_subset: asks the target for sys.list_functions, then takes up to `n` of the minions
 * that have the function, in random order. None is an empty list (no minions matched).
 */
async function pickSubset(opts: SaltOptions, tgt: string | string[], n: number): Promise<string[]> {
  const client = await LocalClient.connect(opts.master);
  try {
    let pub;
    try {
      pub = await client.publish({ tgt, tgtType: opts.tgtType, fun: 'sys.list_functions', arg: [], delimiter: opts.delimiter });
    } catch (err) {
      if (err instanceof BrineError && err.code === 'NO_MINIONS') return [];
      throw err;
    }
    const having: string[] = [];
    for await (const ret of client.returns(pub, opts.timeoutSec * 1000)) {
      if (Array.isArray(ret.return) && ret.return.includes(opts.fun)) having.push(ret.id);
    }
    for (let i = having.length - 1; i > 0; i--) {
      const j = Math.floor(Math.random() * (i + 1));
      [having[i], having[j]] = [having[j], having[i]];
    }
    return having.slice(0, n);
  } finally {
    client.close();
  }
}

/** Salt's _print_returns_summary (salt/cli/salt.py). */
export function summaryText(
  results: Record<string, unknown>,
  failures: Set<string>,
  missing: Array<{ id: string; reason: string }>,
  verbose: boolean,
): string {
  const silent = new Set(missing.map((m) => m.id));
  const returned = Object.keys(results).filter((id) => !silent.has(id));
  const lines = ['\n', '-------------------------------------------', 'Summary', '-------------------------------------------'];
  lines.push(`# of minions targeted: ${returned.length + missing.length}`);
  lines.push(`# of minions returned: ${returned.length}`);
  lines.push(`# of minions that did not return: ${missing.length}`);
  lines.push(`# of minions with errors: ${returned.filter((id) => failures.has(id)).length}`);
  if (verbose) {
    const notConnected = missing.filter((m) => m.reason === 'Not connected').map((m) => m.id);
    const noResponse = missing.filter((m) => m.reason === 'No response').map((m) => m.id);
    const failed = returned.filter((id) => failures.has(id));
    if (notConnected.length > 0) lines.push(`Minions not connected: ${notConnected.join(' ')}`);
    if (noResponse.length > 0) lines.push(`Minions not responding: ${noResponse.join(' ')}`);
    if (failed.length > 0) lines.push(`Minions with failures: ${failed.join(' ')}`);
  }
  lines.push('-------------------------------------------');
  return lines.join('\n') + '\n';
}

export function isFailure(ret: MinionReturn): boolean {
  if (ret.retcode !== 0 || !ret.success) return true;
  const r = ret.return as Record<string, unknown> | null;
  return typeof r === 'object' && r !== null && !Array.isArray(r) && (r.result === false || r.success === false);
}

/** `salt TARGET FUN ARGS` from its parsed command line (by oclif or quick-parse); sets the exit code. */
export async function saltCommand(flags: ParsedFlags<(typeof SALT)['flags']>, words: string[]): Promise<void> {
  const types = TARGET_TYPE_FLAGS.filter((t) => flags[t]);
  if (types.length > 1) throw new CliError(`choose one target type, not ${types.map((t) => `--${t}`).join(' and ')}`, EXIT_USAGE);
  const tgtType = (types[0] ?? 'glob').replace('-', '_') as TargetType;
  const { config } = loadMasterForCli(flags['config-dir'], flags['log-level']);
  const logging = clientLogging(flags);
  let code: number;
  try {
    code = await runSalt(
      {
        master: config,
        tgt: words[0],
        tgtType,
        fun: words[1],
        arg: parseCliArgs(words.slice(2), noParseNames(flags['no-parse'])),
        timeoutSec: flags.timeout ?? config.timeout,
        out: flags.out as Outputter | undefined,
        highstate: highstateOptionsOf(config as unknown as Record<string, unknown>, {
          stateOutput: flags['state-output'],
          stateVerbose: stateVerboseFlag(flags['state-verbose']),
        }),
        outFile: flags['out-file'],
        outIndent: flags['out-indent'],
        static: flags.static,
        async: flags.async,
        showJid: flags['show-jid'],
        verbose: flags.verbose,
        delimiter: flags.delimiter,
        ret: flags.return,
        ...(flags.metadata === undefined ? {} : { metadata: yamlifyArg(flags.metadata) }),
        gatherJobTimeoutSec: config.gather_job_timeout,
        hideTimeout: flags['hide-timeout'],
        // --summary, or cli_summary in the config (Salt's option behind the flag), as Salt prints it:
        // not after an --out (it would break the JSON or YAML) nor for sys.doc.
        summary: (flags.summary === true || config.cli_summary === true) && flags.out === undefined && words[1] !== 'sys.doc',
        batch: flags['batch-size'],
        batchSafeLimit: flags['batch-safe-limit'] ?? Number(config.batch_safe_limit ?? 0),
        batchSafeSize: flags['batch-safe-size'] ?? String(config.batch_safe_size ?? 8),
        previewTarget: flags['preview-target'],
        failhard: flags.failhard,
        subset: flags.subset,
        batchWaitSec: flags['batch-wait'] === undefined ? 0 : Number(flags['batch-wait']),
        color: useColor(flags, process.stdout.isTTY === true),
        log: logging.getLogger('salt.cli.salt'),
      },
      { out: (t) => process.stdout.write(t), err: (t) => process.stderr.write(t), errIsTty: process.stderr.isTTY === true },
    );
  } finally {
    await logging.close();
  }
  process.exitCode = code;
}
