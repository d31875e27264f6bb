import * as Args from '@oclif/core/args';
import { Command } from '@oclif/core/command';
import * as Flags from '@oclif/core/flags';
import { commonFlags, forceColorFlag, logFileFlags, noColorFlag, noParseFlag, outFlag } from '../flags';

export default class SaltRun extends Command {
  static override summary = 'Run a runner function on the master (manage.*, jobs.*, state.event)';
  static override examples = [
    'salt-run manage.status',
    'salt-run jobs.lookup_jid 20261202131309576618',
    'salt-run jobs.active',
    "salt-run state.event 'salt/job/*' pretty=True",
  ];
  static override strict = false;
  static override args = {
    function: Args.string({ description: 'The runner function, e.g. manage.status', required: true }),
  };
  static override flags = {
    ...commonFlags,
    out: outFlag,
    'no-color': noColorFlag,
    'force-color': forceColorFlag,
    ...logFileFlags,
    'no-parse': noParseFlag,
    timeout: Flags.integer({ char: 't', description: 'Seconds to wait for the minions' }),
  };

  async run(): Promise<void> {
    const { args, flags, raw } = await this.parse(SaltRun);
    const { clientLogging, loadMasterForCli } = await import('../context.js');
    const { noParseNames, parseCliArgs, positionalWords } = await import('../args.js');
    const { runRunner } = await import('../salt-run.js');
    const { masterPillarPlugins } = await import('../master-pillar-plugins.js');
    const { useColor } = await import('../output/colors.js');
    const { config } = loadMasterForCli(flags['config-dir'], flags['log-level']);
    const logging = clientLogging(flags);
    try {
      process.exitCode = await runRunner(
        {
          master: config,
          fun: args.function,
          arg: parseCliArgs(positionalWords(raw).slice(1), noParseNames(flags['no-parse'])),
          timeoutSec: flags.timeout ?? config.timeout,
          gatherJobTimeoutSec: config.gather_job_timeout,
          out: (flags.out ?? 'nested') as 'nested',
          color: useColor(flags, process.stdout.isTTY === true),
          log: logging.getLogger('salt.cli.run'),
          pillarPlugins: masterPillarPlugins(config, logging),
        },
        { out: (t) => process.stdout.write(t), err: (t) => process.stderr.write(t) },
      );
    } finally {
      await logging.close();
    }
  }
}
