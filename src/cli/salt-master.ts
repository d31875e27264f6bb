import { startDaemon } from './daemon';
import { Master } from '../core/master/master';
import { masterPillarPlugins } from './master-pillar-plugins';
import { EventReturns } from '../plugins/event-returns';
import { openMasterJobCache } from '../plugins/master-returners';
import { BUILTIN_RETURNERS } from '../../plugins';
import type { ParsedFlags, SALT_MASTER } from './flag-specs';

/** `salt-master` from its parsed command line (by oclif or quick-parse). */
export async function masterCommand(flags: ParsedFlags<(typeof SALT_MASTER)['flags']>): Promise<void> {
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
