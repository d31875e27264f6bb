/**
 * The two line layouts Salt writes by default:
 *   console  '[%(levelname)-8s] %(message)s'
 *   log file '%(asctime)s,%(msecs)03d [%(name)-17s:%(lineno)-4d][%(levelname)-8s][%(process)d] %(message)s'
 * Salt widens the name column to its longest logger name (43 in the captured 3007 logs); brine
 * uses 43 by default so lines line up with Salt's. There are no Python line numbers: each
 * logger has a fixed one (0 unless given), keeping the layout users grep.
 */

import { localTime } from '../pycompat/local-time';

export interface LogRecord {
  time: Date;
  name: string;
  lineno: number;
  levelName: string;
  pid: number;
  message: string;
}

export const DEFAULT_NAME_WIDTH = 43;

const pad2 = (n: number) => String(n).padStart(2, '0');

/** Python's asctime: local time `YYYY-MM-DD HH:MM:SS`. */
export function asctime(d: Date): string {
  const t = localTime(d);
  return `${t.year}-${pad2(t.month + 1)}-${pad2(t.date)} ${pad2(t.hours)}:${pad2(t.minutes)}:${pad2(t.seconds)}`;
}

export function formatConsoleLine(r: LogRecord): string {
  return `[${r.levelName.padEnd(8)}] ${r.message}`;
}

export function formatFileLine(r: LogRecord, nameWidth = DEFAULT_NAME_WIDTH): string {
  // UTC's milliseconds are local time's (zones are whole seconds from UTC), without ICU (local-time.ts).
  const ms = String(r.time.getUTCMilliseconds()).padStart(3, '0');
  return `${asctime(r.time)},${ms} [${r.name.padEnd(nameWidth)}:${String(r.lineno).padEnd(4)}][${r.levelName.padEnd(8)}][${r.pid}] ${r.message}`;
}

function show(arg: unknown, repr: boolean): string {
  if (typeof arg === 'string') return repr ? `'${arg}'` : arg;
  if (arg instanceof Error) return arg.message;
  if (arg === null || arg === undefined) return 'None';
  if (arg === true) return 'True';
  if (arg === false) return 'False';
  if (typeof arg === 'bigint' || typeof arg === 'number') return String(arg);
  if (Buffer.isBuffer(arg)) return `<${arg.length} bytes>`;
  try {
    return JSON.stringify(arg, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)) ?? String(arg);
  } catch {
    return String(arg);
  }
}

/**
 * Python logging's `msg % args`: %s, %r, %d (and %i, %f) take the next argument, %% is a percent.
 * Arguments left over are appended, so nothing a caller passes is lost.
 */
export function formatMessage(msg: string, args: readonly unknown[]): string {
  if (args.length === 0) return msg;
  let i = 0;
  const out = msg.replace(/%([%srdif])/g, (whole, spec: string) => {
    if (spec === '%') return '%';
    if (i >= args.length) return whole;
    const arg = args[i++];
    if (spec === 'd' || spec === 'i') return typeof arg === 'number' ? String(Math.trunc(arg)) : show(arg, false);
    if (spec === 'f') return typeof arg === 'number' ? arg.toFixed(6) : show(arg, false);
    return show(arg, spec === 'r');
  });
  const rest = args.slice(i).map((a) => show(a, false));
  return rest.length ? `${out} ${rest.join(' ')}` : out;
}

// Control characters (C0 but newline and tab, DEL, C1) and invisible formatting characters (bidi
// overrides, zero-width): in a log line they move the cursor, erase text or reorder it on a terminal.
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\p{Cf}\u2028\u2029]/gu;
const UNSAFE_WITH_NEWLINES = /[\p{Cc}\p{Cf}\u2028\u2029]/gu;

function escapeChar(c: string): string {
  const code = c.codePointAt(0)!;
  if (c === '\n') return '\\n';
  if (c === '\r') return '\\r';
  if (c === '\t') return '\\t';
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/** A whole log message: newlines stay (stack traces, multi-line hints), other controls are escaped. */
export function escapeLogMessage(message: string): string {
  return message.replace(UNSAFE, escapeChar);
}

/** Longest message written to a log: a field that slipped past logField cannot fill the disk. */
export const MAX_LOG_MESSAGE = 64 * 1024;

/** Cuts a message longer than MAX_LOG_MESSAGE, saying how long it was. */
export function cutLogMessage(message: string): string {
  if (message.length <= MAX_LOG_MESSAGE) return message;
  return `${message.slice(0, MAX_LOG_MESSAGE)}... (message cut, ${message.length} characters)`;
}

/** Default length kept of a field that a peer sent. */
export const LOG_FIELD_CHARS = 200;

/**
 * A value that came from the network, ready to put in a log line: every control character
 * (newlines too, so it cannot forge a line) escaped, and cut to `max` characters with its length.
 *
 * @example
 * log.warning(`Bad request from ${logField(id)}`); // 'Bad request from evil\x1b[2J... (100000 characters)'
 */
export function logField(value: unknown, max = LOG_FIELD_CHARS): string {
  let text: string;
  if (typeof value === 'string') text = value;
  else if (Buffer.isBuffer(value)) return `<${value.length} bytes>`;
  else text = show(value, false);
  const cut = text.length > max ? `${text.slice(0, max)}... (${text.length} characters)` : text;
  return cut.replace(UNSAFE_WITH_NEWLINES, escapeChar);
}
