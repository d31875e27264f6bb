import { Command } from '@oclif/core/command';
import { daemonFlags } from '../flags';

export default class SaltMaster extends Command {
  static override summary = 'Start the master: publish jobs to minions and collect their returns';
  static override examples = ['salt-master -c ./etc/salt -l info', 'salt-master -d'];
  static override flags = {
    ...daemonFlags,
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(SaltMaster);
    const { startDaemon } = await import('../context.js');
    const { Master } = await import('../../core/master/master.js');
    const { masterPillarPlugins } = await import('../master-pillar-plugins.js');
    await startDaemon('master', flags, (config, logging) => {
      const master = new Master(config, logging.getLogger('salt.master'), { pillarPlugins: masterPillarPlugins(config, logging) });
      return { start: () => master.start(), stop: () => master.stop() };
    });
  }
}
