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
import { levelNumber, LEVELS, type LevelName } from './levels';

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

  function emit(name: string, lineno: number, level: LevelName, msg: string, args: unknown[]): void {
    const n = LEVELS[level];
    const toConsole = n >= consoleLevel;
    const toFile = fd !== null && n >= fileLevel;
    if (!toConsole && !toFile) return;
    const record: LogRecord = {
      time: new Date(),
      name,
      lineno,
      levelName: LEVEL_LABELS[level],
      pid: process.pid,
      message: escapeLogMessage(cutLogMessage(formatMessage(String(msg), args))),
    };
    if (toConsole) stderr.write(formatConsoleLine(record) + '\n');
    if (toFile && fd !== null) fs.writeSync(fd, formatFileLine(record, nameWidth) + '\n');
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
