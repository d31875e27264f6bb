import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { loadMasterConfig, loadMinionConfig, type MasterConfig, type MinionConfig } from '../core/config';
import { createLogging, type Logging } from '../core/log';
import { CliError } from './errors';
import { DEFAULT_CONFIG_DIR } from './flag-specs';
import { daemonize, isDaemonChild, lockPidFile, onShutdown, removePidFile, reportReady, reportStartFailure } from './daemon';

/**
 * A -c folder that does not exist at all is refused before anything is written: it is a typo, or
 * a root being removed under a starting command, and Salt's defaults would put keys, cache and
 * logs under /etc/salt and /var instead of where the user meant.
 */
function requireConfigDir(configDir: string, role: 'master' | 'minion'): void {
  if (resolve(configDir) !== DEFAULT_CONFIG_DIR && !existsSync(configDir))
    throw new CliError(`The configuration directory ${configDir} does not exist`, 1, {
      hint: `Create it (a ${role} file in it holds the settings; none means Salt's defaults) or give -c the folder that holds your ${role} configuration.`,
    });
}

/** A missing configuration file is allowed (Salt's defaults apply) but never silent. */
function missingFileWarning(configDir: string, role: 'master' | 'minion'): string[] {
  const file = join(configDir, role);
  return existsSync(file)
    ? []
    : [`No configuration file ${file}: using the defaults (paths under /etc/salt, /var/cache/salt, /var/run/salt)`];
}

function warn(warnings: string[]): void {
  for (const w of warnings) process.stderr.write(`[WARNING ] ${w}\n`);
}

/** The master's configuration for a client command (salt, salt-key, salt-run); warnings to stderr. */
export function loadMasterForCli(configDir: string, logLevel?: string): { config: MasterConfig } {
  requireConfigDir(configDir, 'master');
  const { config, warnings } = loadMasterConfig(configDir, logLevel ? { log_level: logLevel } : {});
  warn([...missingFileWarning(configDir, 'master'), ...warnings]);
  return { config };
}

export function loadMinionForCli(configDir: string, logLevel?: string, overrides: Record<string, unknown> = {}): { config: MinionConfig } {
  requireConfigDir(configDir, 'minion');
  const { config, warnings } = loadMinionConfig(configDir, { ...(logLevel ? { log_level: logLevel } : {}), ...overrides });
  // --log-file is taken as typed (not under root_dir), as Salt's option parser does.
  if (typeof overrides.log_file === 'string') config.log_file = resolve(overrides.log_file);
  warn([...missingFileWarning(configDir, 'minion'), ...warnings]);
  return { config };
}

/**
 * The log of a client command (salt, salt-run, salt-key): with --log-file, records at
 * --log-file-level (default warning) go to that file, as Salt's LogLevelMixIn writes them. The
 * console is left as these commands print it (their warnings on stderr).
 */
export function clientLogging(flags: { 'log-file'?: string; 'log-file-level'?: string }): Logging {
  const level = flags['log-file-level'] ?? 'warning';
  return createLogging({ level, console: false, logFile: flags['log-file'] ? resolve(flags['log-file']) : null, logFileLevel: level });
}

export interface DaemonFlags {
  'config-dir': string;
  'log-level'?: string;
  'log-file'?: string;
  'log-file-level'?: string;
  daemon?: boolean;
}

interface Runnable {
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** salt-api runs on the master's configuration, with its own log and pid files. */
type Role = 'master' | 'minion' | 'api';
type ConfigOf<R extends Role> = R extends 'minion' ? MinionConfig : MasterConfig;

const ROLE_NAMES: Record<Role, string> = { master: 'Master', minion: 'Minion', api: 'API' };

/**
 * The life of salt-master and salt-minion: configuration, logging, -d, the pid file, and a clean
 * stop on SIGTERM or SIGINT.
 */
export async function startDaemon<R extends Role>(
  role: R,
  flags: DaemonFlags,
  create: (config: ConfigOf<R>, logging: Logging) => Runnable | Promise<Runnable>,
): Promise<void> {
  requireConfigDir(flags['config-dir'], role === 'minion' ? 'minion' : 'master');
  const overrides: Record<string, unknown> = {};
  if (flags['log-level']) overrides.log_level = flags['log-level'];
  if (flags['log-file-level']) overrides.log_level_logfile = flags['log-file-level'];
  const { config, warnings } = (role === 'minion' ? loadMinionConfig : loadMasterConfig)(flags['config-dir'], overrides);
  const files = role === 'api' ? { log_file: config.api_logfile, pidfile: config.api_pidfile } : {};
  const settings = { ...config, ...files } as ConfigOf<R> & {
    log_file: string;
    pidfile: string;
    log_level: string;
    log_level_logfile?: string;
  };
  // --log-file is taken as typed (not under root_dir), as Salt's option parser does.
  if (flags['log-file']) settings.log_file = resolve(flags['log-file']);
  if (flags.daemon) {
    const pid = await daemonize(process.argv.slice(2), settings.log_file);
    process.stdout.write(`salt-${role} started in the background, pid ${pid}\n`);
    return;
  }
  const logging = createLogging({
    level: settings.log_level,
    logFile: settings.log_file,
    logFileLevel: settings.log_level_logfile ?? settings.log_level,
    // In the background the log file is the only place lines go (stdout leads there too).
    console: !isDaemonChild(),
  });
  const log = logging.getLogger(`salt.${role}`);
  for (const w of [...missingFileWarning(flags['config-dir'], role === 'minion' ? 'minion' : 'master'), ...warnings]) log.warning(w);
  let daemon: Runnable | undefined;
  try {
    // The pid file is the lock: taken before anything shared (ports, keys, sockets) is touched.
    lockPidFile(settings.pidfile, role);
    daemon = await create(config as ConfigOf<R>, logging);
    const running = daemon;
    onShutdown(async () => {
      log.info(`Shutting down the Salt ${ROLE_NAMES[role]}`);
      await running.stop();
      removePidFile(settings.pidfile);
      await logging.close();
    });
    // A minion may wait a long time for its key to be accepted: it counts as up once configured.
    if (role === 'minion') reportReady();
    await daemon.start();
    reportReady();
  } catch (err) {
    reportStartFailure(err);
    removePidFile(settings.pidfile);
    await daemon?.stop().catch(() => undefined);
    await logging.close();
    throw err;
  }
}
