import * as Args from '@oclif/core/args';
import { Command } from '@oclif/core/command';
import * as Flags from '@oclif/core/flags';
import { commonFlags, logFileFlags, noParseFlag, outputFlags, stateOutputFlags, stateVerboseFlag } from '../flags';

export default class SaltCall extends Command {
  static override summary = 'Run a function on this minion, and send the return to the master unless --local';
  static override examples = ['salt-call --local test.ping', 'salt-call grains.items', "salt-call cmd.run 'uptime'"];
  static override strict = false;
  static override args = {
    function: Args.string({ description: 'The function to run, e.g. test.ping', required: true }),
  };
  static override flags = {
    ...commonFlags,
    ...outputFlags,
    ...logFileFlags,
    'no-parse': noParseFlag,
    local: Flags.boolean({ description: 'Run without a master' }),
    id: Flags.string({ description: 'Run as this minion id' }),
    'retcode-passthrough': Flags.boolean({ description: "Exit with the function's retcode" }),
    ...stateOutputFlags,
    metadata: Flags.boolean({ description: 'Print the execution metadata (jid, fun, retcode, ...) as well as the return' }),
    'set-metadata': Flags.string({ description: 'Pass metadata into Salt, used to search jobs (a YAML value)' }),
    return: Flags.string({ description: 'Pass the return data to one or many returners (a,b), as well as to the master' }),
  };

  async run(): Promise<void> {
    const { args, flags, raw } = await this.parse(SaltCall);
    const { loadMinionForCli } = await import('../context.js');
    const { noParseNames, parseCliArgs, positionalWords } = await import('../args.js');
    const { runSaltCall } = await import('../salt-call.js');
    const { useColor } = await import('../output/colors.js');
    const { yamlifyArg } = await import('../../core/pycompat/index.js');
    const overrides: Record<string, unknown> = {};
    if (flags['log-file']) overrides.log_file = flags['log-file'];
    if (flags['log-file-level']) overrides.log_level_logfile = flags['log-file-level'];
    const { config } = loadMinionForCli(flags['config-dir'], flags['log-level'], overrides);
    if (flags.id) config.id = flags.id;
    process.exitCode = await runSaltCall(
      {
        config,
        fun: args.function,
        arg: parseCliArgs(positionalWords(raw).slice(1), noParseNames(flags['no-parse'])),
        local: flags.local,
        out: flags.out as 'nested' | undefined,
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
}
