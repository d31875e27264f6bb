/**
 * brine's logging: Salt's levels and line layouts, to stderr and/or a log file.
 *
 *   const logging = createLogging({ level: 'info', logFile: '/var/log/salt/minion', console: true });
 *   const log = logging.getLogger('salt.crypt');
 *   log.error('The Salt Master has cached the public key for this node, ...');
 *   await logging.close();
 *
 * File lines are appended with one synchronous write each, so a crash or exit never loses the
 * last lines; close() releases the file.
 */
import fs from 'node:fs';
import path from 'node:path';
import { ConfigError } from '../errors';
import {
  DEFAULT_NAME_WIDTH,
  cutLogMessage,
  escapeLogMessage,
  formatConsoleLine,
  formatFileLine,
  formatMessage,
  type LogRecord,
} from './format';
import { isLevelName, levelNumber, LEVELS, type LevelName } from './levels';
import { compileLogFormat, type LogLineFormat } from './log-format';

export interface Logger {
  readonly name: string;
  garbage(msg: string, ...args: unknown[]): void;
  trace(msg: string, ...args: unknown[]): void;
  debug(msg: string, ...args: unknown[]): void;
  info(msg: string, ...args: unknown[]): void;
  warning(msg: string, ...args: unknown[]): void;
  error(msg: string, ...args: unknown[]): void;
  critical(msg: string, ...args: unknown[]): void;
  /** A logger named `<this name>.<name>`. */
  child(name: string): Logger;
  isEnabled(level: LevelName): boolean;
}

export interface LoggingOptions {
  /** Console level (Salt's log_level, `-l`). */
  level: string;
  /** Path of the log file; omitted or null = no file. */
  logFile?: string | null;
  /** File level (log_level_logfile); defaults to `level`. */
  logFileLevel?: string;
  /** Write to stderr. */
  console: boolean;
  /** Where console lines go (default process.stderr). */
  stderr?: { write(text: string): unknown };
  /** Width of the logger-name column in the file (default 43, as in Salt 3007's logs). */
  nameWidth?: number;
  /** log_fmt_console and log_datefmt; Salt's defaults when omitted. */
  consoleFormat?: { format: string; datefmt: string };
  /** log_fmt_logfile and log_datefmt_logfile; Salt's defaults when omitted. */
  fileFormat?: { format: string; datefmt: string };
  /**
   * log_granular_levels: a level per logger name, for it and the loggers below it (`salt.master`
   * covers `salt.master.jobs`), the nearest one counting, as Python's logger levels; each line
   * must pass it as well as its console or file level.
   */
  granularLevels?: Record<string, unknown>;
}

/** Salt's default line layouts and date formats (salt/config: log_fmt_*, log_datefmt*). */
export const DEFAULT_CONSOLE_FORMAT = { format: '[%(levelname)-8s] %(message)s', datefmt: '%H:%M:%S' };
export const DEFAULT_FILE_FORMAT = {
  format: '%(asctime)s,%(msecs)03d [%(name)-17s:%(lineno)-4d][%(levelname)-8s][%(process)d] %(message)s',
  datefmt: '%Y-%m-%d %H:%M:%S',
};

/** The layout options of a loaded config (Salt's log_fmt_*, log_datefmt*, log_granular_levels), for createLogging. */
export function loggingLayout(config: {
  log_fmt_console?: unknown;
  log_datefmt?: unknown;
  log_fmt_logfile?: unknown;
  log_datefmt_logfile?: unknown;
  log_granular_levels?: unknown;
}): Pick<LoggingOptions, 'consoleFormat' | 'fileFormat' | 'granularLevels'> {
  const text = (v: unknown, fallback: string) => (typeof v === 'string' ? v : fallback);
  const levels = config.log_granular_levels;
  return {
    consoleFormat: {
      format: text(config.log_fmt_console, DEFAULT_CONSOLE_FORMAT.format),
      datefmt: text(config.log_datefmt, DEFAULT_CONSOLE_FORMAT.datefmt),
    },
    fileFormat: {
      format: text(config.log_fmt_logfile, DEFAULT_FILE_FORMAT.format),
      datefmt: text(config.log_datefmt_logfile, DEFAULT_FILE_FORMAT.datefmt),
    },
    ...(levels !== null && typeof levels === 'object' ? { granularLevels: levels as Record<string, unknown> } : {}),
  };
}

/** A layout: brine's own code for Salt's default, a compiled one for anything else. */
function lineFormat(
  given: { format: string; datefmt: string } | undefined,
  fallback: { format: string; datefmt: string },
  builtin: LogLineFormat,
  nameWidth: number,
  option: string,
): LogLineFormat {
  if (!given || (given.format === fallback.format && (given.datefmt === fallback.datefmt || !given.format.includes('%(asctime)'))))
    return builtin;
  return compileLogFormat(given.format, given.datefmt, nameWidth, option);
}

/** The level a logger's lines must reach under log_granular_levels: its own or its nearest parent's. */
function granularThreshold(levels: Record<string, unknown> | undefined): ((name: string) => number) | undefined {
  if (!levels || Object.keys(levels).length === 0) return undefined;
  const byName = new Map<string, number>();
  for (const [name, level] of Object.entries(levels)) {
    if (typeof level !== 'string' || !isLevelName(level.toLowerCase())) {
      throw new ConfigError('BAD_CONFIG', `log_granular_levels: the level of '${name}' must be a log level, got ${JSON.stringify(level)}`, {
        hint: `use one of: ${Object.keys(LEVELS).join(', ')}`,
      });
    }
    byName.set(name, levelNumber(level));
  }
  const cache = new Map<string, number>();
  return (name) => {
    let threshold = cache.get(name);
    if (threshold !== undefined) return threshold;
    threshold = 0;
    for (let n = name; ; n = n.slice(0, n.lastIndexOf('.'))) {
      const own = byName.get(n);
      if (own !== undefined) {
        threshold = own;
        break;
      }
      if (!n.includes('.')) break;
    }
    cache.set(name, threshold);
    return threshold;
  };
}

export interface Logging {
  getLogger(name: string, lineno?: number): Logger;
  close(): Promise<void>;
}

const LEVEL_LABELS: Record<LevelName, string> = {
  all: 'NOTSET',
  garbage: 'GARBAGE',
  trace: 'TRACE',
  debug: 'DEBUG',
  profile: 'PROFILE',
  info: 'INFO',
  warning: 'WARNING',
  error: 'ERROR',
  critical: 'CRITICAL',
  quiet: 'QUIET',
};

function openLogFile(file: string): number {
  let target = file;
  if (/^file:\/\//i.test(target)) target = new URL(target).pathname;
  else if (/^[a-z][a-z0-9+.-]*:\/\//i.test(target)) {
    throw new ConfigError('BAD_LOG_FILE', `log_file '${file}' is a syslog address; brine writes log files only`, {
      hint: 'set log_file to a path',
    });
  }
  try {
    fs.mkdirSync(path.dirname(target), { recursive: true });
    return fs.openSync(target, 'a', 0o600);
  } catch (err) {
    throw new ConfigError(
      'BAD_LOG_FILE',
      `cannot open log file ${target}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
      {
        cause: err,
        hint: 'check the directory exists and is writable, or change log_file / root_dir',
      },
    );
  }
}

export function createLogging(options: LoggingOptions): Logging {
  const consoleLevel = options.console ? levelNumber(options.level) : Infinity;
  let fd: number | null = options.logFile ? openLogFile(options.logFile) : null;
  const fileLevel = fd === null ? Infinity : levelNumber(options.logFileLevel ?? options.level);
  const stderr = options.stderr ?? process.stderr;
  const nameWidth = options.nameWidth ?? DEFAULT_NAME_WIDTH;
  const consoleLine = lineFormat(options.consoleFormat, DEFAULT_CONSOLE_FORMAT, formatConsoleLine, nameWidth, 'log_fmt_console');
  const fileLine = lineFormat(options.fileFormat, DEFAULT_FILE_FORMAT, (r) => formatFileLine(r, nameWidth), nameWidth, 'log_fmt_logfile');
  const granular = granularThreshold(options.granularLevels);

  function emit(name: string, lineno: number, level: LevelName, msg: string, args: unknown[]): void {
    const n = LEVELS[level];
    const toConsole = n >= consoleLevel;
    const toFile = fd !== null && n >= fileLevel;
    if (!toConsole && !toFile) return;
    if (granular && n < granular(name)) return;
    const record: LogRecord = {
      time: new Date(),
      name,
      lineno,
      levelName: LEVEL_LABELS[level],
      pid: process.pid,
      message: escapeLogMessage(cutLogMessage(formatMessage(String(msg), args))),
    };
    if (toConsole) stderr.write(consoleLine(record) + '\n');
    if (toFile && fd !== null) fs.writeSync(fd, fileLine(record) + '\n');
  }

  function makeLogger(name: string, lineno: number): Logger {
    const at =
      (level: LevelName) =>
      (msg: string, ...args: unknown[]) =>
        emit(name, lineno, level, msg, args);
    return {
      name,
      garbage: at('garbage'),
      trace: at('trace'),
      debug: at('debug'),
      info: at('info'),
      warning: at('warning'),
      error: at('error'),
      critical: at('critical'),
      child: (sub: string) => makeLogger(`${name}.${sub}`, lineno),
      isEnabled: (level: LevelName) => LEVELS[level] >= Math.min(consoleLevel, fd === null ? Infinity : fileLevel),
    };
  }

  return {
    getLogger(name: string, lineno = 0): Logger {
      if (typeof name !== 'string' || name === '')
        throw new ConfigError('BAD_LOGGER_NAME', 'a logger needs a non-empty name such as salt.minion');
      return makeLogger(name, lineno);
    },
    async close(): Promise<void> {
      if (fd !== null) {
        const closing = fd;
        fd = null;
        fs.closeSync(closing);
      }
    },
  };
}
