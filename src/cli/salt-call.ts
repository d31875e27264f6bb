import { writeFileSync } from 'node:fs';
import type { MinionConfig } from '../core/config';
import { createLogging, loggingLayout } from '../core/log';
import type { Minion } from '../core/minion/job-loop';
import { MinionPillar } from '../plugins/services/pillar';
import { MasterLink } from '../plugins/services/master-link';
import { executorFor, grainsFor, minionSettings, pillarSource, resolveId, startPlugins } from './minion-runtime';
import { FileClient } from '../core/minion/file-client';
import { SignInError } from '../core/minion/minion-errors';
import { formatOutput, type Outputter } from './output';
import type { Io } from './salt';
import { formatHighstate, highstateOptionsOf } from './output/highstate';
import { getColors } from './output/colors';
import { JidFactory } from '../core/protocol/jid';
import { loadMinionForCli } from './context';
import { noParseNames, parseCliArgs } from './args';
import { useColor } from './output/colors';
import { yamlifyArg } from '../core/pycompat';
import { stateVerboseFlag, type ParsedFlags, type SALT_CALL } from './flag-specs';
import { lazyModule } from '../core/lazy-module';

/** `salt-call FUN ARGS` from its parsed command line (by oclif or quick-parse); sets the exit code. */
export async function saltCallCommand(flags: ParsedFlags<(typeof SALT_CALL)['flags']>, words: string[]): Promise<void> {
  const overrides: Record<string, unknown> = {};
  if (flags['log-file']) overrides.log_file = flags['log-file'];
  if (flags['log-file-level']) overrides.log_level_logfile = flags['log-file-level'];
  const { config } = loadMinionForCli(flags['config-dir'], flags['log-level'], overrides);
  if (flags.id) config.id = flags.id;
  process.exitCode = await runSaltCall(
    {
      config,
      fun: words[0],
      arg: parseCliArgs(words.slice(1), noParseNames(flags['no-parse'])),
      local: flags.local,
      out: flags.out as Outputter | undefined,
      stateOutput: flags['state-output'],
      stateVerbose: stateVerboseFlag(flags['state-verbose']),
      outFile: flags['out-file'],
      outIndent: flags['out-indent'],
      retcodePassthrough: flags['retcode-passthrough'],
      color: useColor(flags, process.stdout.isTTY === true),
      metadata: flags.metadata,
      ret: flags.return,
      ...(flags['set-metadata'] === undefined ? {} : { setMetadata: yamlifyArg(flags['set-metadata']) }),
      // Salt's salt-call logs to the console at the config's log_level (default warning) unless -l says.
      logLevel: String(flags['log-level'] ?? config.log_level ?? 'warning'),
    },
    { out: (t) => process.stdout.write(t), err: (t) => process.stderr.write(t) },
  );
}

export interface SaltCallOptions {
  config: MinionConfig;
  fun: string;
  arg: unknown[];
  local: boolean;
  /** --out; unset = the function's own outputter (highstate for state runs), else nested. */
  out?: Outputter;
  /** Highstate outputter options (--state-output, --state-verbose; minion config otherwise). */
  stateOutput?: string;
  stateVerbose?: boolean;
  outFile?: string;
  outIndent?: number;
  retcodePassthrough: boolean;
  logLevel: string;
  /** Print in Salt's colours (see output/colors.ts useColor). */
  color?: boolean;
  /** --metadata: print the job's data (jid, fun, fun_args, id, retcode) around the return, with nested. */
  metadata?: boolean;
  /** --return a,b: returners that get the return too (with the minion's `return:` option), as Salt's caller. */
  ret?: string;
  /** --set-metadata: Salt's `metadata`, put in the return the returners (and --metadata) see. */
  setMetadata?: unknown;
}

/**
 * `salt-call FUN ARGS`: runs the function here with the minion's plugins. Without --local the
 * return also goes to the master with jid "req", as Salt's salt-call does. While it runs, the
 * job is recorded in the minion's proc dir, so a state run here and one in the daemon refuse
 * each other as in Salt.
 */
export async function runSaltCall(opts: SaltCallOptions, io: Io): Promise<number> {
  const logging = createLogging({
    ...loggingLayout(opts.config),
    level: opts.logLevel,
    logFile: opts.config.log_file,
    logFileLevel: opts.config.log_level_logfile ?? opts.config.log_level,
    console: true,
  });
  try {
    await resolveId(opts.config, logging, false);
    // Without --local the master is there: salt-call can sync and fetch salt:// files too.
    let minion: Minion | undefined;
    const files = opts.local ? undefined : new FileClient((load) => connected().then((m) => m.request(load)));
    const connected = async () => {
      if (!minion) {
        // Loaded only when a master is asked: salt-call --local needs no ZeroMQ.
        const { Minion } = await lazyModule(
          // eslint-disable-next-line @typescript-eslint/no-require-imports
          () => require('../core/minion/job-loop.js') as typeof import('../core/minion/job-loop.js'),
          () => import('../core/minion/job-loop.js'),
        );
        minion = new Minion(minionSettings(opts.config), executor, grainsFor(runtime), logging.getLogger('salt.crypt'));
        await minion.connect({ once: true });
      }
      return minion;
    };
    // --local means file_client local (Salt sets it): the pillar is compiled here.
    const local = opts.local || opts.config.file_client === 'local';
    const pillar = new MinionPillar(
      pillarSource(opts.config, logging, () => runtime, local ? undefined : (load) => connected().then((m) => m.request(load))),
    );
    const masterLink = local ? undefined : new MasterLink((load) => connected().then((m) => m.request(load)));
    const runtime = await startPlugins(opts.config, logging, files, pillar, masterLink);
    const executor = executorFor(runtime);
    // As Salt's caller: sign in before running anything; a master that does not answer (or a key
    // not accepted yet) ends salt-call with Salt's text and exit code, nothing run.
    if (!opts.local) {
      try {
        await connected();
      } catch (err) {
        await minion?.stop();
        if (!(err instanceof SignInError)) throw err;
        if (err.code === 'SIGN_IN_PENDING') io.out(`${err.message}\n`);
        else io.err(`${err.message}\n`);
        return err.exitCode;
      }
    }
    // As Salt's caller: a jid of its own here (its proc file, which the minion daemon and other
    // salt-calls see, and --metadata), "req" in the return to the master.
    const jid = new JidFactory().next();
    const job = { fun: opts.fun, arg: opts.arg, tgt: minionSettings(opts.config).id, tgt_type: 'glob', jid, ret: '', user: 'root' };
    const result = await executor.run(job);
    const metadata = opts.setMetadata === undefined ? {} : { metadata: opts.setMetadata };
    const printed = opts.metadata
      ? {
          jid,
          return: result.return,
          retcode: result.retcode,
          ...(result.out ? { out: result.out } : {}),
          id: job.tgt,
          fun: opts.fun,
          fun_args: opts.arg,
          ...metadata,
        }
      : result.return;
    const out = opts.out ?? (opts.metadata ? 'nested' : (result.out ?? 'nested'));
    const text =
      out === 'highstate'
        ? formatHighstate(
            { local: printed },
            { ...highstateOptionsOf(opts.config as unknown as Record<string, unknown>, opts), colors: getColors(opts.color === true) },
          ) + '\n'
        : formatOutput(out as Outputter, { local: printed }, { indent: opts.outIndent, color: opts.color, retcode: result.retcode });
    const line = text === '' || text.endsWith('\n') ? text : `${text}\n`;
    if (opts.outFile) writeFileSync(opts.outFile, line);
    else io.out(line);
    // --return and the minion's `return:` option; an unknown or failing returner is logged.
    await runtime.sendToReturners({ fun: opts.fun, arg: opts.arg, jid, ret: opts.ret ?? '', ...metadata }, result);
    if (!opts.local) {
      try {
        await (await connected()).sendReturn({ ...job, jid: 'req' }, result);
      } finally {
        await minion?.stop();
      }
    }
    if (opts.retcodePassthrough) return result.retcode;
    return result.retcode === 0 ? 0 : 1;
  } finally {
    await logging.close();
  }
}
