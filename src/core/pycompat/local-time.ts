/**
 * Local time as libc knows it, read from the zone file libc reads (TZif, RFC 8536: `$TZ` or
 * /etc/localtime) rather than through JavaScript's local `Date` methods.
 *
 * Why: V8 answers `getHours()`, `getTimezoneOffset()` and even `toISOString()` through ICU's time
 * zone code, whose first use maps ICU's zone data and code and allocates its zone objects: about
 * 1.2 MiB of an idle salt-minion's 51 MiB (docs/scaling.md), for a start-up line and the `_stamp`
 * of its returns. Where the file cannot answer (no file, a POSIX rule in `$TZ`, a time past the
 * file's transitions in a zone with daylight saving), `Date`'s own local methods do.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The zone file libc would read: `$TZ` names one under /usr/share/zoneinfo (or a path), else
 * /etc/localtime. As glibc, a `$TZ` that names no file is a POSIX rule, which this does not read.
 */
function zoneFile(tz: string | undefined): string | undefined {
  if (tz === undefined || tz === '') return '/etc/localtime';
  const name = tz.startsWith(':') ? tz.slice(1) : tz;
  if (name.startsWith('/')) return name;
  return name.split('/').includes('..') ? undefined : `/usr/share/zoneinfo/${name}`;
}

interface LocalTimeType {
  /** Seconds east of UTC. */
  utoff: number;
  isdst: boolean;
  abbrev: string;
}

/** A TZif file's transitions (seconds since the epoch, ascending) and the types they switch to. */
export interface Zone {
  times: number[];
  indices: number[];
  types: LocalTimeType[];
  /**
   * Past the last transition: the type of the file's POSIX rule (version 2 and later) when it has
   * no daylight saving, undefined when it has (or the file has no rule: then the last type holds).
   */
  after: { rule: false } | { rule: true; type: LocalTimeType | undefined };
}

/**
 * A footer's POSIX rule without daylight saving (`CET-1`, `<+0530>-5:30`, `UTC0`) as a type;
 * undefined for a rule with daylight saving. The rule's offset is west of UTC: utoff's reverse.
 */
function ruleType(footer: string): LocalTimeType | undefined {
  const rule = /^(<[^>]+>|[A-Za-z]{3,})([-+]?)(\d+)(?::(\d+))?(?::(\d+))?$/.exec(footer);
  if (!rule) return undefined;
  const seconds = Number(rule[3]) * 3600 + Number(rule[4] ?? 0) * 60 + Number(rule[5] ?? 0);
  const utoff = seconds === 0 || rule[2] === '-' ? seconds : -seconds;
  return { abbrev: rule[1].replace(/^<(.*)>$/, '$1'), utoff, isdst: false };
}

/** One TZif data block (RFC 8536 3.2) from `at`, with 4-byte (v1) or 8-byte (v2+) transition times. */
function readBlock(buf: Buffer, at: number, wide: boolean): { zone: Omit<Zone, 'after'>; end: number } {
  if (buf.toString('latin1', at, at + 4) !== 'TZif') throw new Error('not a TZif file');
  const [isutcnt, isstdcnt, leapcnt, timecnt, typecnt, charcnt] = [0, 1, 2, 3, 4, 5].map((i) => buf.readUInt32BE(at + 20 + 4 * i));
  const size = wide ? 8 : 4;
  let p = at + 44;
  const times: number[] = [];
  for (let i = 0; i < timecnt; i++, p += size) times.push(wide ? Number(buf.readBigInt64BE(p)) : buf.readInt32BE(p));
  const indices = [...buf.subarray(p, p + timecnt)];
  p += timecnt;
  const raw: Array<{ utoff: number; isdst: boolean; abbrevAt: number }> = [];
  for (let i = 0; i < typecnt; i++, p += 6) raw.push({ utoff: buf.readInt32BE(p), isdst: buf[p + 4] === 1, abbrevAt: buf[p + 5] });
  const chars = buf.subarray(p, p + charcnt);
  p += charcnt + leapcnt * (size + 4) + isstdcnt + isutcnt;
  const types = raw.map(({ utoff, isdst, abbrevAt }) => {
    const stop = chars.indexOf(0, abbrevAt);
    return { utoff, isdst, abbrev: chars.toString('latin1', abbrevAt, stop < 0 ? undefined : stop) };
  });
  return { zone: { times, indices, types }, end: p };
}

/** A TZif file's contents read: its version 2+ data when it has them, else its version 1 data. */
export function parseZone(buf: Buffer): Zone {
  const first = readBlock(buf, 0, false);
  if (buf[4] < 0x32) return { ...first.zone, after: { rule: false } };
  const second = readBlock(buf, first.end, true);
  const nl = buf.indexOf(0x0a, second.end + 1);
  const footer = buf.toString('latin1', second.end + 1, nl < 0 ? undefined : nl);
  return { ...second.zone, after: footer === '' ? { rule: false } : { rule: true, type: ruleType(footer) } };
}

/** The local time type in force at `t` (seconds since the epoch), or undefined when the file cannot tell. */
export function zoneAt(zone: Zone, t: number): LocalTimeType | undefined {
  const { times, indices, types, after } = zone;
  if (types.length === 0) return undefined;
  // The last transition at or before t (binary search: a zone file has up to ~400).
  let lo = 0;
  let hi = times.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (times[mid] <= t) lo = mid + 1;
    else hi = mid;
  }
  const last = lo - 1;
  // Past the last transition the footer's POSIX rule applies (answered only without daylight saving).
  if (last === times.length - 1 && after.rule) return after.type;
  // Before the first transition: the first standard-time type, as RFC 8536 says.
  return types[
    last >= 0
      ? indices[last]
      : Math.max(
          0,
          types.findIndex((x) => !x.isdst),
        )
  ];
}

/**
 * The local zone's type at `now` (seconds), or undefined when the zone file cannot tell (see above).
 * `root` stands for `/` (a fixture tree in tests); `tz` is the environment's `TZ`.
 */
export function localZoneAt(root: string, tz: string | undefined, now = Date.now() / 1000): LocalTimeType | undefined {
  const file = zoneFile(tz);
  if (file === undefined) return undefined;
  try {
    return zoneAt(parseZone(readFileSync(join(root, file))), Math.floor(now));
  } catch {
    return undefined;
  }
}

/** The process's zone, read once for each value `$TZ` takes (null: the file cannot be read). */
const zones = new Map<string, Zone | null>();

function processZone(): Zone | null {
  const tz = process.env.TZ;
  const key = tz ?? '\0unset';
  let zone = zones.get(key);
  if (zone === undefined) {
    const file = zoneFile(tz);
    try {
      zone = file === undefined ? null : parseZone(readFileSync(file));
    } catch {
      zone = null;
    }
    zones.set(key, zone);
  }
  return zone;
}

/** A moment's fields in local time: JavaScript's counting (month from 0, day of the week from Sunday). */
export interface LocalTime {
  year: number;
  month: number;
  date: number;
  day: number;
  hours: number;
  minutes: number;
  seconds: number;
  milliseconds: number;
  /** Minutes east of UTC (the reverse of getTimezoneOffset()). */
  offsetMinutes: number;
  /** The zone's abbreviation ('UTC', 'CEST') when the zone file answered. */
  zone?: string;
}

/** `d` in this process's local time: from the zone file when it can tell, else from `Date`'s local methods. */
export function localTime(d: Date): LocalTime {
  const ms = d.getTime();
  const zone = processZone();
  const type = zone && Number.isFinite(ms) ? zoneAt(zone, Math.floor(ms / 1000)) : undefined;
  if (type === undefined) {
    return {
      year: d.getFullYear(),
      month: d.getMonth(),
      date: d.getDate(),
      day: d.getDay(),
      hours: d.getHours(),
      minutes: d.getMinutes(),
      seconds: d.getSeconds(),
      milliseconds: d.getMilliseconds(),
      offsetMinutes: 0 - d.getTimezoneOffset(),
    };
  }
  // The UTC fields of the moment moved by the offset are its local fields (no ICU on this path).
  const shifted = new Date(ms + type.utoff * 1000);
  return {
    year: shifted.getUTCFullYear(),
    month: shifted.getUTCMonth(),
    date: shifted.getUTCDate(),
    day: shifted.getUTCDay(),
    hours: shifted.getUTCHours(),
    minutes: shifted.getUTCMinutes(),
    seconds: shifted.getUTCSeconds(),
    milliseconds: shifted.getUTCMilliseconds(),
    offsetMinutes: Math.round(type.utoff / 60),
    zone: type.abbrev,
  };
}

const pad = (n: number, width = 2): string => String(n).padStart(width, '0');

/**
 * `d` in UTC as `YYYY-MM-DDTHH:MM:SS.mmm`, what `toISOString()` gives without its `Z` (the
 * `_stamp` of a minion's loads), from the UTC fields: `toISOString()` itself goes through ICU.
 */
export function utcStamp(d: Date = new Date()): string {
  return (
    `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}` +
    `T${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}.${pad(d.getUTCMilliseconds(), 3)}`
  );
}
