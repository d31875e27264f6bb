import { setFlagsFromString } from 'node:v8';
import { startDaemon } from './daemon';
import { Master } from '../core/master/master';
import { masterPillarPlugins } from './master-pillar-plugins';
import { EventReturns } from '../plugins/event-returns';
import { openMasterJobCache } from '../plugins/master-returners';
import { BUILTIN_RETURNERS } from '../../plugins';
import type { ParsedFlags, SALT_MASTER } from './flag-specs';

/**
 * How far V8 lets the master's old generation grow past what its last full collection kept, in
 * percent. V8 picks a factor of its own (1.1 to 4, faster collections allowing more); the master's
 * heap is a large set of long-lived state (sessions, grains, connections: about 90 MB at 10,000
 * minions) under a steady stream of short-lived garbage, and at V8's factor it held 150-200 MiB of
 * heap and grew 5-25 % over a 180 s soak (docs/scaling.md, "The master's heap held in check").
 */
export const MASTER_HEAP_GROWING_PERCENT = 20;

/**
 * Sets MASTER_HEAP_GROWING_PERCENT for this process. V8 reads it each time it sets the next
 * collection's limit, so setting it while the process runs holds from then on; Node's command line
 * cannot carry it for `salt-master` started by its own shebang line.
 */
export function boundMasterHeap(): void {
  setFlagsFromString(`--heap-growing-percent=${MASTER_HEAP_GROWING_PERCENT}`);
}

/** `salt-master` from its parsed command line (by oclif or quick-parse). */
export async function masterCommand(flags: ParsedFlags<(typeof SALT_MASTER)['flags']>): Promise<void> {
  boundMasterHeap();
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
