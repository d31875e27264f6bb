import type { MinionConfig } from '../core/config';
import type { Logging } from '../core/log';
import { createNodeIdentitySources, describeIdChoice, resolveMinionId, type MinionIdResult } from '../core/minion/identity';
import { loadMinionConfig } from '../core/config';
import { createLogging } from '../core/log';
import { EXIT_REJECTED, MasterKeyMismatchError, Minion, MinionRejectedError, type JobExecutor } from '../core/minion/minion';
import type { JobLoad } from '../core/protocol/loads';
import { Executor } from '../plugins/executor';
import { PluginLoader, type LoadedPlugins } from '../plugins/loader/loader';
import { StaticConfig } from '../plugins/services/config';
import { BUILTIN_PLUGINS } from '../../plugins';

/**
 * Salt's minion id rules (config `id`, the `minion_id` cache, then the host's names), with a
 * warning and the fix when the result looks shared or stale. The chosen id is written into the
 * configuration so everything after sees one id.
 */
export async function resolveId(config: MinionConfig, logging: Logging, writeCache = true): Promise<MinionIdResult> {
  const log = logging.getLogger('salt.config');
  const result = await resolveMinionId(config, config.config_dir, createNodeIdentitySources(), log, { writeCache });
  config.id = result.id;
  return result;
}

/** The id after resolveId; a configuration that never went through it is a bug. */
export function minionId(config: MinionConfig): string {
  if (typeof config.id !== 'string' || config.id === '') throw new Error('minion id not resolved yet');
  return config.id;
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
    master_finger: config.master_finger,
    hash_type: config.hash_type,
  };
}

/** salt-minion's daemon: when the master rejects our key, Salt's CRITICAL line, then exit 77. */
export async function createMinion(config: MinionConfig, logging: Logging) {
  const log = logging.getLogger('salt.minion');
  await resolveId(config, logging);
  const plugins = await loadPlugins(config, logging);
  const minion = new Minion(minionSettings(config), executorFor(plugins, logging), () => plugins.grains.all(), logging.getLogger('salt.crypt'));
  const crypt = logging.getLogger('salt.crypt');
  const fatal = async (err: MinionRejectedError | MasterKeyMismatchError): Promise<never> => {
    crypt.critical(err.message);
    if (err.hint) log.error(err.hint);
    if (err instanceof MinionRejectedError) {
      // Salt sleeps 10-20 s before exiting so a supervisor does not restart it in a tight loop.
      const wait = config.acceptance_wait_time * 1000 * (1 + Math.random());
      await new Promise((r) => setTimeout(r, wait));
    }
    await minion.stop();
    await logging.close();
    process.exit(err instanceof MinionRejectedError ? EXIT_REJECTED : 1);
  };
  void minion.fatal.then(fatal);
  return {
    start: async () => {
      try {
        await minion.start();
      } catch (err) {
        if (err instanceof MinionRejectedError || err instanceof MasterKeyMismatchError) await fatal(err);
        throw err;
      }
    },
    stop: () => minion.stop(),
  };
}

export async function printMinionId(configDir: string, logLevel = 'warning'): Promise<string> {
  const { config } = loadMinionConfig(configDir, { log_level: logLevel });
  const logging = createLogging({ level: logLevel, console: true, logFile: null });
  try {
    const text = describeIdChoice(await resolveId(config, logging, false));
    return text.endsWith('\n') ? text : `${text}\n`;
  } finally {
    await logging.close();
  }
}
