import { Command } from '@oclif/core/command';
import * as Flags from '@oclif/core/flags';
import { daemonFlags } from '../flags';

export default class SaltMinion extends Command {
  static override summary = 'Start a minion: sign in to the master and run the jobs it publishes';
  static override examples = ['salt-minion -c ./etc/salt -l info', 'salt-minion -d'];
  static override flags = {
    ...daemonFlags,
    'print-id': Flags.boolean({ description: 'Print the minion id, which rule chose it and any warning, then exit' }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(SaltMinion);
    if (flags['print-id']) {
      const { printMinionId } = await import('../minion-runtime.js');
      process.stdout.write(await printMinionId(flags['config-dir'], flags['log-level']));
      return;
    }
    const { startDaemon } = await import('../context.js');
    const { createMinion } = await import('../minion-runtime.js');
    await startDaemon('minion', flags, (config, logging) => createMinion(config, logging));
  }
}
