/**
 * Job ids as Salt makes them: 20 digits, UTC `YYYYMMDDhhmmssffffff` (microseconds).
 *
 * JavaScript clocks give milliseconds, and a busy master can publish several jobs in the same
 * microsecond: a factory therefore never hands out the same jid twice, bumping the microseconds past
 * the last one it issued (as Salt's `gen_jid(unique=True)` does).
 */
import { ProtocolError } from '../errors';
import { MONTHS } from '../pycompat/time';

const JID_RE = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})(\d{6})$/;

/** Microseconds since the epoch for a Date (millisecond precision, the rest zero). */
function microsOf(d: Date): number {
  const ms = d.getTime();
  if (!Number.isFinite(ms)) throw new ProtocolError('BAD_JID', 'cannot make a jid from an invalid Date');
  return ms * 1000;
}

function pad(n: number, width: number): string {
  return String(n).padStart(width, '0');
}

/** Format microseconds since the epoch as a 20-digit jid. */
export function formatJid(micros: number): string {
  const ms = Math.floor(micros / 1000);
  const d = new Date(ms);
  const year = d.getUTCFullYear();
  if (year < 1000 || year > 9999) {
    throw new ProtocolError('BAD_JID', `cannot make a jid for year ${year} (4 digits needed)`);
  }
  const frac = (ms % 1000) * 1000 + (micros - ms * 1000);
  return (
    pad(year, 4) +
    pad(d.getUTCMonth() + 1, 2) +
    pad(d.getUTCDate(), 2) +
    pad(d.getUTCHours(), 2) +
    pad(d.getUTCMinutes(), 2) +
    pad(d.getUTCSeconds(), 2) +
    pad(frac, 6)
  );
}

/** The number `s` holds in its characters [from, from + width), or -1 when one is not a digit 0-9. */
function digits(s: string, from: number, width: number): number {
  let n = 0;
  for (let i = from; i < from + width; i++) {
    const d = s.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return -1;
    n = n * 10 + d;
  }
  return n;
}

function daysIn(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/**
 * True when `s` is a 20-digit jid naming a real UTC moment; a year below 100 is refused, as when
 * this check went through Date.UTC (which reads 0-99 as 1900-1999). Read digit by digit, not with
 * a regular expression and a Date: every publication's jid is checked, on every minion.
 */
export function isJid(s: unknown): s is string {
  if (typeof s !== 'string' || s.length !== 20 || digits(s, 14, 6) < 0) return false;
  const [year, month, day] = [digits(s, 0, 4), digits(s, 4, 2), digits(s, 6, 2)];
  const [hour, minute, second] = [digits(s, 8, 2), digits(s, 10, 2), digits(s, 12, 2)];
  return (
    year >= 100 &&
    month >= 1 &&
    month <= 12 &&
    day >= 1 &&
    day <= daysIn(year, month) &&
    hour >= 0 &&
    hour < 24 &&
    minute >= 0 &&
    minute < 60 &&
    second >= 0 &&
    second < 60
  );
}

/** The moment a jid names (millisecond precision: JavaScript Dates hold no microseconds). */
export function jidToDate(jid: string): Date {
  if (!isJid(jid)) throw new ProtocolError('BAD_JID', `not a jid: ${JSON.stringify(jid)} (expected 20 digits YYYYMMDDhhmmssffffff)`);
  const m = JID_RE.exec(jid)!;
  const [, y, mo, d, h, mi, sec, frac] = m.map(Number);
  return new Date(Date.UTC(y, mo - 1, d, h, mi, sec, Math.floor(frac / 1000)));
}

/**
 * Salt's jid_to_time, the start time it prints for a job: '' for text that is not shaped like a
 * jid (20 digits, optionally `_suffix`).
 *
 * @example jidToTime('20261202131309576618') // '2026, Dec 02 13:13:09.576618'
 */
export function jidToTime(jid: string): string {
  if (jid.length !== 20 && (jid.length <= 21 || jid[20] !== '_')) return '';
  const m = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})(\d{6})/.exec(jid);
  if (!m) return '';
  const month = MONTHS[Number(m[2]) - 1];
  if (month === undefined) return '';
  return `${m[1]}, ${month} ${m[3]} ${m[4]}:${m[5]}:${m[6]}.${m[7]}`;
}

/** Hands out strictly increasing jids: unique within one master even inside one microsecond. */
export class JidFactory {
  private lastMicros = -Infinity;

  /** Without `now`, the clock's microseconds are used (performance.timeOrigin + now()). */
  next(now?: Date): string {
    let micros = now ? microsOf(now) : Math.floor((performance.timeOrigin + performance.now()) * 1000);
    if (micros <= this.lastMicros) micros = this.lastMicros + 1;
    this.lastMicros = micros;
    return formatJid(micros);
  }
}
