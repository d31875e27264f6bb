/**
 * Salt's log layout options: log_fmt_console / log_fmt_logfile (Python's %-style formats) with
 * log_datefmt / log_datefmt_logfile, and log_granular_levels.
 */
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/core/errors';
import { createLogging, DEFAULT_FILE_FORMAT, loggingLayout } from '../../../src/core/log';
import { formatFileLine, type LogRecord } from '../../../src/core/log/format';
import { compileLogFormat } from '../../../src/core/log/log-format';

const RECORD: LogRecord = {
  time: new Date(2026, 11, 7, 9, 5, 3, 42),
  name: 'salt.master',
  lineno: 0,
  levelName: 'WARNING',
  pid: 4242,
  message: 'the message',
};

describe('log line formats', () => {
  it("compiles Salt's default log file format to the same line brine writes for it", () => {
    const compiled = compileLogFormat(DEFAULT_FILE_FORMAT.format, DEFAULT_FILE_FORMAT.datefmt, 43);
    expect(compiled(RECORD)).toBe(formatFileLine(RECORD, 43));
    expect(compiled(RECORD)).toBe(`2026-12-07 09:05:03,042 [${'salt.master'.padEnd(43)}:0   ][WARNING ][4242] the message`);
  });

  it("fills Python's record fields and Salt's bracketed ones, with widths, precision, zero padding and %%", () => {
    const line = compileLogFormat(
      '%(asctime)s.%(msecs)03d %(bracketlevel)s%(bracketprocess)s %(levelno)d %(module)s %(message).3s 100%%',
      '%H:%M:%S',
      43,
    );
    expect(line(RECORD)).toBe('09:05:03.042 [WARNING ][ 4242] 30 master the 100%');
    expect(compileLogFormat('%(process)08d|%(levelname)8s|%(created).1f', '%H', 0)(RECORD)).toBe(
      `00004242| WARNING|${(RECORD.time.getTime() / 1000).toFixed(1)}`,
    );
  });

  it('widens a padded logger name to the longest name, as Salt does, and leaves others as written', () => {
    expect(compileLogFormat('[%(name)-10s]', '%H', 20)(RECORD)).toBe(`[${'salt.master'.padEnd(20)}]`);
    expect(compileLogFormat('[%(name)s]', '%H', 20)(RECORD)).toBe('[salt.master]');
  });

  it('refuses a field no record has, or a stray %, naming the option', () => {
    expect(() => compileLogFormat('%(colour)s %(message)s', '%H', 0, 'log_fmt_logfile')).toThrow(ConfigError);
    expect(() => compileLogFormat('%(colour)s', '%H', 0, 'log_fmt_logfile')).toThrow(
      'log_fmt_logfile: %(colour)s names no log record field',
    );
    expect(() => compileLogFormat('100% %(message)s', '%H', 0)).toThrow("log_fmt_console: '100% ' holds a % that is not a %(field)s spec");
  });
});

describe('createLogging with the layout options', () => {
  function capture(config: Record<string, unknown>, level = 'debug') {
    const lines: string[] = [];
    const logging = createLogging({ ...loggingLayout(config), level, console: true, stderr: { write: (l: string) => lines.push(l) } });
    return { logging, lines };
  }

  it('writes console lines in log_fmt_console with log_datefmt', () => {
    const { logging, lines } = capture({ log_fmt_console: '%(asctime)s %(levelname)s %(name)s: %(message)s', log_datefmt: '%Y' });
    logging.getLogger('salt.minion').warning('hello %s', 'there');
    expect(lines).toEqual([`${new Date().getFullYear()} WARNING salt.minion: hello there\n`]);
  });

  it('log_granular_levels sets a level for a logger and those below it, the nearest counting', () => {
    const { logging, lines } = capture({ log_granular_levels: { 'salt.transport': 'warning', 'salt.transport.zeromq': 'debug' } });
    logging.getLogger('salt.transport.tcp').info('quieted');
    logging.getLogger('salt.transport.tcp').error('kept');
    logging.getLogger('salt.transport.zeromq.pub').debug('nearest wins');
    logging.getLogger('salt.master').debug('untouched');
    expect(lines.map((l) => l.trim())).toEqual(['[ERROR   ] kept', '[DEBUG   ] nearest wins', '[DEBUG   ] untouched']);
  });

  it('refuses a granular level that is not one', () => {
    expect(() => capture({ log_granular_levels: { salt: 'loud' } })).toThrow(
      'log_granular_levels: the level of \'salt\' must be a log level, got "loud"',
    );
  });
});
