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
    const { EventReturns } = await import('../../plugins/event-returns.js');
    const { openMasterJobCache } = await import('../../plugins/master-returners.js');
    const { BUILTIN_RETURNERS } = await import('../../../plugins/index.js');
    await startDaemon('master', flags, (config, logging) => {
      const master = new Master(config, logging.getLogger('salt.master'), {
        pillarPlugins: masterPillarPlugins(config, logging),
        // master_job_cache: a built-in cache, or any returner (Salt's pluggable master job cache).
        openJobCache: () =>
          openMasterJobCache({
            config: config as unknown as Record<string, unknown>,
            logger: logging.getLogger('salt.loaded.int.returner'),
            builtins: BUILTIN_RETURNERS,
          }),
      });
      let returns: Awaited<ReturnType<typeof EventReturns.start>>;
      return {
        start: async () => {
          await master.start();
          // event_return: the master's events to the returners it names (Salt's EventReturn process).
          returns = await EventReturns.start({
            config: config as unknown as Record<string, unknown>,
            logger: logging.getLogger('salt.utils.event'),
            builtins: BUILTIN_RETURNERS,
            jobCache: master.cache,
          });
          if (returns) master.onEvent((tag, data) => returns?.push(tag, data));
        },
        stop: async () => {
          // Queued events first, while the job cache (and its connection) is still open.
          await returns?.stop();
          await master.stop();
        },
      };
    });
  }
}
