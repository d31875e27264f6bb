import { Command } from '@oclif/core/command';
import { SALT_MINION } from '../flag-specs';
import { oclifFlags } from '../flags';

/** oclif's salt-minion, for --help and the command lines quick-parse leaves to oclif (main.ts). */
export default class SaltMinion extends Command {
  static override summary = 'Start a minion: sign in to the master and run the jobs it publishes';
  static override examples = ['salt-minion -c ./etc/salt -l info', 'salt-minion -d'];
  static override flags = oclifFlags(SALT_MINION.flags);

  async run(): Promise<void> {
    const { flags } = await this.parse(SaltMinion);
    const { minionCommand } = await import('../minion-runtime.js');
    await minionCommand(flags);
  }
}
