import { Command } from '@oclif/core/command';
import { SALT_MASTER } from '../flag-specs';
import { oclifFlags } from '../flags';

/** oclif's salt-master, for --help and the command lines quick-parse leaves to oclif (main.ts). */
export default class SaltMaster extends Command {
  static override summary = 'Start the master: publish jobs to minions and collect their returns';
  static override examples = ['salt-master -c ./etc/salt -l info', 'salt-master -d'];
  static override flags = oclifFlags(SALT_MASTER.flags);

  async run(): Promise<void> {
    const { flags } = await this.parse(SaltMaster);
    const { masterCommand } = await import('../salt-master.js');
    await masterCommand(flags);
  }
}
