/**
 * Salt's log line options, `log_fmt_console` and `log_fmt_logfile` (Python logging's %-style
 * formats) with `log_datefmt` and `log_datefmt_logfile` (strftime), compiled once into a function
 * of a record:
 *
 *   compileLogFormat('%(asctime)s %(bracketlevel)s %(message)s', '%H:%M:%S', 43)(record)
 *   // '14:03:07 [WARNING ] the message'
 *
 * The fields are Python's LogRecord attributes brine has (asctime, msecs, created, name,
 * levelname, levelno, lineno, process, message; module, funcName, filename, pathname,
 * processName, threadName, thread and relativeCreated as Python would fill them for a daemon
 * without source files) and Salt's own: bracketname, bracketlevel, bracketprocess and their
 * color* forms, written without colour. As Salt does, `%(name)-Ns` narrower than the longest
 * logger name is widened to it. An unknown field or a malformed spec is a ConfigError naming the
 * option, when the daemon starts.
 */
import { ConfigError } from '../errors';
import { pyStrftime } from '../pycompat/time';
import type { LogRecord } from './format';

export type LogLineFormat = (record: LogRecord) => string;

/** When the process started (Python's relativeCreated counts from logging's import). */
const STARTED = Date.now();

/** Each field's value for a record; `datefmt` is the option's date format. */
const FIELDS: Record<string, (r: LogRecord, datefmt: string) => string | number> = {
  asctime: (r, datefmt) => pyStrftime(r.time, datefmt),
  // UTC's milliseconds are local time's (zones are whole seconds from UTC), without ICU (local-time.ts).
  msecs: (r) => r.time.getUTCMilliseconds(),
  created: (r) => r.time.getTime() / 1000,
  relativeCreated: (r) => r.time.getTime() - STARTED,
  name: (r) => r.name,
  levelname: (r) => r.levelName,
  levelno: (r) => LEVEL_NUMBERS[r.levelName] ?? 0,
  lineno: (r) => r.lineno,
  process: (r) => r.pid,
  processName: () => 'MainProcess',
  thread: () => 0,
  threadName: () => 'MainThread',
  message: (r) => r.message,
  module: (r) => r.name.slice(r.name.lastIndexOf('.') + 1),
  funcName: () => '',
  filename: (r) => `${r.name.slice(r.name.lastIndexOf('.') + 1)}.js`,
  pathname: (r) => r.name,
  bracketname: (r) => `[${r.name.padEnd(17)}]`,
  bracketlevel: (r) => `[${r.levelName.padEnd(8)}]`,
  bracketprocess: (r) => `[${String(r.pid).padStart(5)}]`,
  colorname: (r) => `[${r.name.padEnd(17)}]`,
  colorlevel: (r) => `[${r.levelName.padEnd(8)}]`,
  colorprocess: (r) => `[${String(r.pid).padStart(5)}]`,
  colormsg: (r) => r.message,
};

/** Python's level numbers by label (Salt's extra levels included). */
const LEVEL_NUMBERS: Record<string, number> = {
  NOTSET: 0,
  GARBAGE: 1,
  TRACE: 5,
  DEBUG: 10,
  PROFILE: 15,
  INFO: 20,
  WARNING: 30,
  ERROR: 40,
  CRITICAL: 50,
  QUIET: 1000,
};

/** `%(key)` then Python's conversion spec: flags, width, precision, type. */
const SPEC = /%(?:\(([^)]*)\)([#0\- +]*)(\d*)(?:\.(\d+))?([diouxXeEfFgGcrsa])|(%))/g;

/** Python's %-formatting of one value: s/r/a as text, d/i/u as integers, f/F/e/g as floats, x/X/o. */
function convert(value: string | number, type: string, precision: string): string {
  switch (type) {
    case 's':
    case 'a':
      return precision === '' ? String(value) : String(value).slice(0, Number(precision));
    case 'r':
      return typeof value === 'string' ? `'${value}'` : String(value);
    case 'd':
    case 'i':
    case 'u':
      return String(Math.trunc(Number(value)));
    case 'f':
    case 'F':
      return Number(value).toFixed(precision === '' ? 6 : Number(precision));
    case 'e':
    case 'E': {
      const t = Number(value)
        .toExponential(precision === '' ? 6 : Number(precision))
        .replace(/e([+-])(\d)$/, 'e$10$2');
      return type === 'E' ? t.toUpperCase() : t;
    }
    case 'x':
      return Math.trunc(Number(value)).toString(16);
    case 'X':
      return Math.trunc(Number(value)).toString(16).toUpperCase();
    case 'o':
      return Math.trunc(Number(value)).toString(8);
    case 'c':
      return typeof value === 'number' ? String.fromCodePoint(value) : value.slice(0, 1);
    default:
      // g and G: Python's shortest of e and f forms.
      return String(Number(precision === '' ? Number(value).toPrecision(6) : Number(value).toPrecision(Number(precision) || 1)));
  }
}

/**
 * The line layout of `format` (`option` names it in errors), its asctime in `datefmt`, the
 * logger-name column at least `nameWidth` wide where the format pads it.
 */
export function compileLogFormat(format: string, datefmt: string, nameWidth: number, option = 'log_fmt_console'): LogLineFormat {
  const parts: Array<string | ((r: LogRecord) => string)> = [];
  let at = 0;
  const literal = (text: string) => {
    if (text.includes('%')) {
      throw new ConfigError('BAD_CONFIG', `${option}: '${text}' holds a % that is not a %(field)s spec`, {
        hint: "write fields as %(name)s and a literal percent sign as '%%'",
      });
    }
    if (text !== '') parts.push(text);
  };
  for (const m of format.matchAll(SPEC)) {
    literal(format.slice(at, m.index));
    at = m.index + m[0].length;
    if (m[6] === '%') {
      parts.push('%');
      continue;
    }
    const [, key, flags, widthText, precision = '', type] = m;
    const field = FIELDS[key];
    if (!field) {
      throw new ConfigError('BAD_CONFIG', `${option}: %(${key})${type} names no log record field`, {
        hint: `use ${Object.keys(FIELDS)
          .map((k) => `%(${k})s`)
          .join(', ')}`,
      });
    }
    const left = flags.includes('-');
    const zero = flags.includes('0') && !left && 'dioufFeExX'.includes(type);
    // Salt widens `%(name)-Ns` to its longest logger name (SaltLoggingClass).
    const width =
      key === 'name' && left && type === 's' && widthText !== '' ? Math.max(Number(widthText), nameWidth) : Number(widthText || 0);
    parts.push((r) => {
      const text = convert(field(r, datefmt), type, precision);
      if (text.length >= width) return text;
      if (left) return text.padEnd(width);
      if (zero) return text.startsWith('-') ? `-${text.slice(1).padStart(width - 1, '0')}` : text.padStart(width, '0');
      return text.padStart(width);
    });
  }
  literal(format.slice(at));
  return (r) => {
    let line = '';
    for (const p of parts) line += typeof p === 'string' ? p : p(r);
    return line;
  };
}
