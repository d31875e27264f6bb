import { Command, Flags } from '@oclif/core';
import { configDirFlag, logLevelFlag } from '../flags';

export default class SaltMaster extends Command {
  static override summary = 'Start the master: publish jobs to minions and collect their returns';
  static override examples = ['salt-master -c ./etc/salt -l info', 'salt-master -d'];
  static override flags = {
    'config-dir': configDirFlag,
    'log-level': logLevelFlag,
    'log-file-level': Flags.string({ description: 'Log file logging level' }),
    daemon: Flags.boolean({ char: 'd', description: 'Run in the background' }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(SaltMaster);
    const { startDaemon } = await import('../context.js');
    const { Master } = await import('../../core/master/master.js');
    await startDaemon('master', flags, (config, logging) => {
      const master = new Master(config, logging.getLogger('salt.master'));
      return { start: () => master.start(), stop: () => master.stop() };
    });
  }
}
