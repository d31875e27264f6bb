import { Command } from '@oclif/core/command';
import { daemonFlags } from '../flags';

export default class SaltApi extends Command {
  static override summary = "Start salt-api: Salt's REST API (rest_cherrypy) in front of the master, for SaltGUI, pepper and HTTP clients";
  static override examples = ['salt-api -c ./etc/salt -l info', 'salt-api -d'];
  static override flags = {
    ...daemonFlags,
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(SaltApi);
    const { startDaemon } = await import('../daemon.js');
    const { ApiDaemon } = await import('../../api/api-daemon.js');
    const { masterPillarPlugins } = await import('../master-pillar-plugins.js');
    await startDaemon('api', flags, (config, logging) => {
      // The runners that compile pillar (pillar.show_pillar) use the master's plugins, as the master does.
      const api = new ApiDaemon(config, logging.getLogger('salt.netapi'), { pillarPlugins: masterPillarPlugins(config, logging) });
      return { start: () => api.start(), stop: () => api.stop() };
    });
  }
}
