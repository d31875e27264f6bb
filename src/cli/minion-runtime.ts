import { hostname } from 'node:os';
import type { MinionConfig } from '../core/config';
import type { Logging } from '../core/log';
import { EXIT_REJECTED, Minion, MinionRejectedError, type JobExecutor } from '../core/minion/minion';
import type { JobLoad } from '../core/protocol/loads';
import { Executor } from '../plugins/executor';
import { PluginLoader, type LoadedPlugins } from '../plugins/loader/loader';
import { StaticConfig } from '../plugins/services/config';
import { BUILTIN_PLUGINS } from '../../plugins';

/** The minion id: `id` from the configuration, else the host name (Salt's full rules come later). */
export function minionId(config: MinionConfig): string {
  return typeof config.id === 'string' && config.id !== '' ? config.id : hostname();
}

/** Loads the plugins for this minion: built-ins, module_dirs and plugin packages. */
export async function loadPlugins(config: MinionConfig, logging: Logging): Promise<LoadedPlugins> {
  const logger = logging.getLogger('salt.loader');
  const plugins = await new PluginLoader({
    config: new StaticConfig({ ...config, id: minionId(config) } as Record<string, unknown>),
    logger,
    builtins: BUILTIN_PLUGINS,
  }).load();
  for (const p of plugins.registry.problems) logger.warning(`${p.origin}: ${p.error.message}`);
  return plugins;
}

export function executorFor(plugins: LoadedPlugins, logging: Logging): JobExecutor {
  const executor = new Executor(plugins, logging.getLogger('salt.minion'));
  return {
    run: (job: JobLoad) =>
      executor.run({
        fun: String(job.fun),
        arg: job.arg,
        jid: job.jid,
        user: job.user,
        tgt: job.tgt,
        tgtType: job.tgt_type,
        ret: typeof job.ret === 'string' ? job.ret : '',
      }),
  };
}

export function minionSettings(config: MinionConfig) {
  return {
    id: minionId(config),
    master: Array.isArray(config.master) ? String(config.master[0]) : String(config.master),
    master_port: config.master_port,
    pki_dir: config.pki_dir,
    keysize: config.keysize,
    acceptance_wait_time: config.acceptance_wait_time,
    auth_timeout: config.auth_timeout,
    recon_default: config.recon_default,
    recon_max: config.recon_max,
    return_retry_timer: config.return_retry_timer,
    return_retry_tries: config.return_retry_tries,
  };
}

/** salt-minion's daemon: when the master rejects our key, Salt's CRITICAL line, then exit 77. */
export async function createMinion(config: MinionConfig, logging: Logging) {
  const log = logging.getLogger('salt.minion');
  const plugins = await loadPlugins(config, logging);
  const minion = new Minion(minionSettings(config), executorFor(plugins, logging), () => plugins.grains.all(), logging.getLogger('salt.crypt'));
  const rejected = async (err: MinionRejectedError): Promise<never> => {
    logging.getLogger('salt.crypt').critical(err.message);
    if (err.hint) log.error(err.hint);
    // Salt sleeps 10-20 s before exiting so a supervisor does not restart it in a tight loop.
    const wait = config.acceptance_wait_time * 1000 * (1 + Math.random());
    await new Promise((r) => setTimeout(r, wait));
    await minion.stop();
    await logging.close();
    process.exit(EXIT_REJECTED);
  };
  void minion.rejected.then(rejected);
  return {
    start: async () => {
      try {
        await minion.start();
      } catch (err) {
        if (err instanceof MinionRejectedError) await rejected(err);
        throw err;
      }
    },
    stop: () => minion.stop(),
  };
}
