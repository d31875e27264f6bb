import { format } from 'node:util';
import type { ILogger } from '../api/services';

export type LogLevel = 'debug' | 'info' | 'warning' | 'error';
const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warning: 30, error: 40 };

/**
 * {@link ILogger} writing `[LEVEL] message` lines (printf-style `%s` arguments) to a sink,
 * stderr by default, dropping lines below `level`.
 *
 * @example
 * const log = new StreamLogger('info');
 * log.warning('module %s is unavailable', 'pkgx');
 */
export class StreamLogger implements ILogger {
  constructor(
    private readonly level: LogLevel = 'warning',
    private readonly sink: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
  ) {}

  private write(level: LogLevel, message: string, args: unknown[]): void {
    if (RANK[level] < RANK[this.level]) return;
    this.sink(`[${level.toUpperCase()}] ${format(message, ...args)}`);
  }

  debug(message: string, ...args: unknown[]): void {
    this.write('debug', message, args);
  }
  info(message: string, ...args: unknown[]): void {
    this.write('info', message, args);
  }
  warning(message: string, ...args: unknown[]): void {
    this.write('warning', message, args);
  }
  error(message: string, ...args: unknown[]): void {
    this.write('error', message, args);
  }
}
