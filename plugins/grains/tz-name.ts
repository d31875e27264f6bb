/**
 * The local time zone's abbreviation now ('UTC', 'CET', 'CEST'), what Python's `tzname()` gives
 * Salt's `timezone` grain, read from the zone file libc reads (TZif: `$TZ` or /etc/localtime)
 * rather than through `Intl`: the first `Intl.DateTimeFormat` of a process maps about 8 MiB of
 * ICU data into it, too much for a minion that must stay small. Returns undefined when the file
 * cannot answer (no file, a POSIX rule string in `$TZ`, a time past the file's transitions in a
 * zone with daylight saving); the caller then asks `Intl`.
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

interface Block {
  times: bigint[];
  indices: number[];
  types: { isdst: boolean; abbrevAt: number }[];
  chars: Buffer;
  end: number;
}

/** One TZif data block (RFC 8536 3.2) from `at`, with 4-byte (v1) or 8-byte (v2+) transition times. */
function readBlock(buf: Buffer, at: number, wide: boolean): Block {
  if (buf.toString('latin1', at, at + 4) !== 'TZif') throw new Error('not a TZif file');
  const [isutcnt, isstdcnt, leapcnt, timecnt, typecnt, charcnt] = [0, 1, 2, 3, 4, 5].map((i) => buf.readUInt32BE(at + 20 + 4 * i));
  const size = wide ? 8 : 4;
  let p = at + 44;
  const times: bigint[] = [];
  for (let i = 0; i < timecnt; i++, p += size) times.push(wide ? buf.readBigInt64BE(p) : BigInt(buf.readInt32BE(p)));
  const indices = [...buf.subarray(p, p + timecnt)];
  p += timecnt;
  const types = [];
  for (let i = 0; i < typecnt; i++, p += 6) types.push({ isdst: buf[p + 4] === 1, abbrevAt: buf[p + 5] });
  const chars = buf.subarray(p, p + charcnt);
  p += charcnt + leapcnt * (size + 4) + isstdcnt + isutcnt;
  return { times, indices, types, chars, end: p };
}

function abbrev(block: Block, type: number): string {
  const at = block.types[type].abbrevAt;
  const stop = block.chars.indexOf(0, at);
  return block.chars.toString('latin1', at, stop < 0 ? undefined : stop);
}

/** The abbreviation in force at `now` (seconds since the epoch) in a TZif file's contents. */
export function tzAbbreviation(buf: Buffer, now: number): string | undefined {
  let block = readBlock(buf, 0, false);
  const version = buf[4];
  let footer = '';
  if (version >= 0x32) {
    block = readBlock(buf, block.end, true);
    const nl = buf.indexOf(0x0a, block.end + 1);
    footer = buf.toString('latin1', block.end + 1, nl < 0 ? undefined : nl);
  }
  if (block.types.length === 0) return undefined;
  const t = BigInt(Math.floor(now));
  let last = -1;
  while (last + 1 < block.times.length && block.times[last + 1] <= t) last++;
  if (last === block.times.length - 1 && footer !== '') {
    // Past the last transition the footer's POSIX rule applies: answer only when it has no daylight saving.
    const rule = /^(<[^>]+>|[A-Za-z]{3,})[-+]?\d+(:\d+){0,2}$/.exec(footer);
    return rule ? rule[1].replace(/^<(.*)>$/, '$1') : undefined;
  }
  // Before the first transition: the first standard-time type, as RFC 8536 says.
  const type =
    last >= 0
      ? block.indices[last]
      : Math.max(
          0,
          block.types.findIndex((x) => !x.isdst),
        );
  return abbrev(block, type);
}

/**
 * The local zone's abbreviation now, or undefined when the zone file cannot tell (see above).
 * `root` stands for `/` (a fixture tree in tests); `tz` is the environment's `TZ`.
 */
export function localTzAbbreviation(root: string, tz: string | undefined, now = Date.now() / 1000): string | undefined {
  const file = zoneFile(tz);
  if (file === undefined) return undefined;
  try {
    return tzAbbreviation(readFileSync(join(root, file)), now);
  } catch {
    return undefined;
  }
}
