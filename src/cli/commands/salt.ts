import * as Args from '@oclif/core/args';
import { Command } from '@oclif/core/command';
import * as Flags from '@oclif/core/flags';
import { commonFlags, logFileFlags, noParseFlag, outputFlags, stateOutputFlags, stateVerboseFlag } from '../flags';
import { CliError, EXIT_USAGE } from '../errors';

export default class Salt extends Command {
  static override summary = 'Publish a command to the minions that match a target';
  static override usage = "[options] '<target>' <function> [arguments]";
  static override examples = ["salt '*' test.ping", "salt -G 'os:Debian' cmd.run 'uptime'", 'salt -L web1,db1 test.echo hello'];
  static override strict = false;
  static override args = {
    target: Args.string({ description: 'Minion ids (glob by default) or a target expression', required: true }),
    function: Args.string({ description: 'The function to run, e.g. test.ping', required: true }),
  };
  static override flags = {
    ...commonFlags,
    ...outputFlags,
    ...stateOutputFlags,
    ...logFileFlags,
    'no-parse': noParseFlag,
    pcre: Flags.boolean({ char: 'E', description: 'Target is a regular expression on minion ids' }),
    list: Flags.boolean({ char: 'L', description: 'Target is a comma-separated list of minion ids' }),
    grain: Flags.boolean({ char: 'G', description: "Target is a grain expression 'key:glob'" }),
    'grain-pcre': Flags.boolean({ char: 'P', description: "Target is a grain expression 'key:regex'" }),
    pillar: Flags.boolean({ char: 'I', description: "Target is a pillar expression 'key:glob'" }),
    'pillar-pcre': Flags.boolean({ char: 'J', description: "Target is a pillar expression 'key:regex'" }),
    ipcidr: Flags.boolean({ char: 'S', description: 'Target is an IP address or a CIDR network' }),
    compound: Flags.boolean({ char: 'C', description: 'Target is a compound expression' }),
    nodegroup: Flags.boolean({ char: 'N', description: "Target is a nodegroup from the master's config" }),
    delimiter: Flags.string({ description: 'Delimiter of grain and pillar paths', default: ':' }),
    timeout: Flags.integer({ char: 't', description: 'Seconds to wait for the minions to return' }),
    static: Flags.boolean({ char: 's', description: 'Print all returns together at the end' }),
    async: Flags.boolean({ description: 'Publish the job and print its jid without waiting' }),
    'show-jid': Flags.boolean({ description: 'Print the jid of the job' }),
    verbose: Flags.boolean({ char: 'v', description: 'Say what the command is doing' }),
    return: Flags.string({ description: 'Returner to send the returns to as well' }),
    metadata: Flags.string({ description: 'Pass metadata into Salt, used to search jobs (a YAML value, e.g. \'{"ticket": "OPS-1"}\')' }),
    'hide-timeout': Flags.boolean({ description: 'Leave out the minions that did not return' }),
    summary: Flags.boolean({ description: 'Print a summary of the returns at the end' }),
    'batch-size': Flags.string({ char: 'b', description: "Run on this many minions at a time: 'N' or 'N%'" }),
    subset: Flags.integer({ description: 'Run on this many random minions of the target that have the function' }),
    failhard: Flags.boolean({ description: 'Stop a batch run (-b) at the first minion that fails' }),
    'batch-wait': Flags.string({ description: 'Seconds to wait after a minion returns before starting the next one' }),
  };

  async run(): Promise<void> {
    const { args, flags, raw } = await this.parse(Salt);
    const { noParseNames, parseCliArgs, positionalWords } = await import('../args.js');
    const { clientLogging, loadMasterForCli } = await import('../context.js');
    const { runSalt } = await import('../salt.js');
    const { highstateOptionsOf } = await import('../output/highstate.js');
    const { useColor } = await import('../output/colors.js');
    const { yamlifyArg } = await import('../../core/pycompat/index.js');
    const types = (['pcre', 'list', 'grain', 'grain-pcre', 'pillar', 'pillar-pcre', 'ipcidr', 'compound', 'nodegroup'] as const).filter(
      (t) => flags[t],
    );
    if (types.length > 1) throw new CliError(`choose one target type, not ${types.map((t) => `--${t}`).join(' and ')}`, EXIT_USAGE);
    const tgtType = (types[0] ?? 'glob').replace('-', '_') as 'glob';
    const { config } = loadMasterForCli(flags['config-dir'], flags['log-level']);
    const logging = clientLogging(flags);
    let code: number;
    try {
      code = await runSalt(
        {
          master: config,
          tgt: args.target,
          tgtType,
          fun: args.function,
          arg: parseCliArgs(positionalWords(raw).slice(2), noParseNames(flags['no-parse'])),
          timeoutSec: flags.timeout ?? config.timeout,
          out: flags.out as 'nested' | undefined,
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
          summary: flags.summary,
          batch: flags['batch-size'],
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
}
