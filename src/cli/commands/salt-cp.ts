import * as Args from '@oclif/core/args';
import { Command } from '@oclif/core/command';
import * as Flags from '@oclif/core/flags';
import { commonFlags, logFileFlags, outputFlags } from '../flags';
import { CliError, EXIT_USAGE } from '../errors';

export default class SaltCp extends Command {
  static override summary = 'Copy files from this host to the minions that match a target';
  static override description =
    'salt-cp is NOT intended to broadcast large files, it is intended to handle text files. salt-cp can be used to distribute configuration files.';
  static override usage = "[options] '<target>' SOURCE [SOURCE2 SOURCE3 ...] DEST";
  static override examples = [
    "salt-cp '*' /etc/motd /etc/motd",
    "salt-cp -C 'web*' ./site /srv/www/",
    "salt-cp -G 'os:Debian' -C -n big.iso /tmp/",
  ];
  static override strict = false;
  static override args = {
    target: Args.string({ description: 'Minion ids (glob by default) or a target expression', required: true }),
  };
  static override flags = {
    ...commonFlags,
    ...outputFlags,
    ...logFileFlags,
    chunked: Flags.boolean({
      char: 'C',
      description: 'Use chunked files transfer. Supports big files, recursive lookup and directories creation.',
    }),
    'no-compression': Flags.boolean({ char: 'n', description: 'Disable gzip compression.' }),
    pcre: Flags.boolean({ char: 'E', description: 'Target is a regular expression on minion ids' }),
    list: Flags.boolean({ char: 'L', description: 'Target is a comma- or space-separated list of minion ids' }),
    grain: Flags.boolean({ char: 'G', description: "Target is a grain expression 'key:glob'" }),
    'grain-pcre': Flags.boolean({ char: 'P', description: "Target is a grain expression 'key:regex'" }),
    nodegroup: Flags.boolean({ char: 'N', description: "Target is a nodegroup from the master's config" }),
    timeout: Flags.integer({ char: 't', description: 'Seconds to wait for the minions to return (default 5)' }),
  };

  async run(): Promise<void> {
    const { args, flags, raw } = await this.parse(SaltCp);
    const { positionalWords } = await import('../args.js');
    const { clientLogging, loadMasterForCli } = await import('../context.js');
    const { runSaltCp } = await import('../salt-cp.js');
    const { useColor } = await import('../output/colors.js');
    const { realpathSync } = await import('node:fs');
    const { resolve } = await import('node:path');
    const words = positionalWords(raw);
    if (words.length < 3) throw new CliError("salt-cp needs a target, at least one SOURCE and a DEST: salt-cp '*' SOURCE DEST", EXIT_USAGE);
    const types = (['pcre', 'list', 'grain', 'grain-pcre', 'nodegroup'] as const).filter((t) => flags[t]);
    if (types.length > 1) throw new CliError(`choose one target type, not ${types.map((t) => `--${t}`).join(' and ')}`, EXIT_USAGE);
    const tgtType = (types[0] ?? 'glob').replace('-', '_');
    const tgt = tgtType === 'list' ? (args.target.includes(',') ? args.target.split(',') : args.target.split(/\s+/)) : args.target;
    // Salt's os.path.realpath: absolute, symlinks resolved (a missing path stays as given, absolute).
    const real = (p: string) => {
      try {
        return realpathSync(p);
      } catch {
        return resolve(p);
      }
    };
    const { config } = loadMasterForCli(flags['config-dir'], flags['log-level']);
    const logging = clientLogging(flags);
    try {
      process.exitCode = await runSaltCp(
        {
          master: config,
          tgt,
          tgtType,
          src: words.slice(1, -1).map(real),
          dest: words[words.length - 1],
          chunked: flags.chunked,
          gzip: !flags['no-compression'],
          timeoutSec: flags.timeout ?? 5,
          out: (flags.out ?? 'nested') as 'nested',
          outIndent: flags['out-indent'],
          color: useColor(flags, process.stdout.isTTY === true),
          outFile: flags['out-file'],
          log: logging.getLogger('salt.cli.cp'),
        },
        { out: (t) => process.stdout.write(t), err: (t) => process.stderr.write(t) },
      );
    } finally {
      await logging.close();
    }
  }
}
