import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { loadMasterConfig, loadMinionConfig, type MasterConfig, type MinionConfig } from '../core/config';
import { createLogging, type Logging } from '../core/log';
import { CliError } from './errors';
import { DEFAULT_CONFIG_DIR } from './flag-specs';

/**
 * A -c folder that does not exist at all is refused before anything is written: it is a typo, or
 * a root being removed under a starting command, and Salt's defaults would put keys, cache and
 * logs under /etc/salt and /var instead of where the user meant.
 */
export function requireConfigDir(configDir: string, role: 'master' | 'minion'): void {
  if (resolve(configDir) !== DEFAULT_CONFIG_DIR && !existsSync(configDir))
    throw new CliError(`The configuration directory ${configDir} does not exist`, 1, {
      hint: `Create it (a ${role} file in it holds the settings; none means Salt's defaults) or give -c the folder that holds your ${role} configuration.`,
    });
}

/** A missing configuration file is allowed (Salt's defaults apply) but never silent. */
export function missingFileWarning(configDir: string, role: 'master' | 'minion'): string[] {
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
