/**
 * Local time from the system's TZif files: the `timezone` grain's abbreviation against what
 * Python's `datetime.fromtimestamp(t).astimezone().tzname()` printed for the same zone and instant,
 * and every local field against V8's own local `Date` methods (ICU's copy of the same zone data).
 */
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { localTime, localZoneAt, parseZone, utcStamp, zoneAt } from '../../../src/core/pycompat/local-time';
import { pyAsctime, pyStrftime } from '../../../src/core/pycompat/time';

const zone = (name: string) => parseZone(readFileSync(`/usr/share/zoneinfo/${name}`));
const JAN_2026 = 1767225600;
const JUL_2026 = 1783000000;

const savedTz = process.env.TZ;
afterEach(() => {
  if (savedTz === undefined) delete process.env.TZ;
  else process.env.TZ = savedTz;
});

describe('zoneAt', () => {
  it.each([
    ['Europe/Paris', JAN_2026, 'CET', 3600],
    ['Europe/Paris', JUL_2026, 'CEST', 7200],
    ['America/New_York', JAN_2026, 'EST', -18000],
    ['America/New_York', JUL_2026, 'EDT', -14400],
    ['Asia/Kolkata', JUL_2026, 'IST', 19800],
    ['Australia/Lord_Howe', JAN_2026, '+11', 39600],
    ['Australia/Lord_Howe', JUL_2026, '+1030', 37800],
    ['America/New_York', 0, 'EST', -18000],
    ['UTC', JUL_2026, 'UTC', 0],
    ['Asia/Kolkata', 4102444800, 'IST', 19800],
  ])('%s at %i is %s (%i s east of UTC), as Python says', (name, t, abbrev, utoff) => {
    expect(zoneAt(zone(name), t)).toMatchObject({ abbrev, utoff });
  });

  it('leaves a daylight-saving zone past its last transition to the caller (undefined)', () => {
    expect(zoneAt(zone('Europe/Paris'), 4102444800)).toBeUndefined();
  });

  it('reads $TZ as glibc does: a zone name, a :name, a path; a POSIX rule or a missing file is undefined', () => {
    expect(localZoneAt('/', 'Europe/Paris', JUL_2026)?.abbrev).toBe('CEST');
    expect(localZoneAt('/', ':Europe/Paris', JAN_2026)?.abbrev).toBe('CET');
    expect(localZoneAt('/', '/usr/share/zoneinfo/America/New_York', JUL_2026)?.abbrev).toBe('EDT');
    expect(localZoneAt('/', 'XYZ3ABC,M3.2.0,M11.1.0', JUL_2026)).toBeUndefined();
    expect(localZoneAt('/', '../../etc/passwd', JUL_2026)).toBeUndefined();
    expect(localZoneAt('/nonexistent-root', undefined, JUL_2026)).toBeUndefined();
  });
});

describe('localTime', () => {
  const fields = (d: Date) => ({
    year: d.getFullYear(),
    month: d.getMonth(),
    date: d.getDate(),
    day: d.getDay(),
    hours: d.getHours(),
    minutes: d.getMinutes(),
    seconds: d.getSeconds(),
    milliseconds: d.getMilliseconds(),
    offsetMinutes: 0 - d.getTimezoneOffset(),
  });

  it.each(['UTC', 'Europe/Paris', 'America/New_York', 'Asia/Kathmandu', 'America/St_Johns', 'Australia/Lord_Howe'])(
    'gives in %s the fields V8 gives, from the zone file, around every transition from 1970 to 2036',
    (tz) => {
      process.env.TZ = tz;
      const z = zone(tz);
      const instants = [0, JAN_2026, JUL_2026, 2_000_000_000];
      for (const t of z.times) if (t >= 0 && t < 2_100_000_000) instants.push(t - 1, t, t + 1, t + 1800);
      let fromFile = 0;
      for (const t of instants) {
        const d = new Date(t * 1000 + 250);
        const type = zoneAt(z, t);
        if (type !== undefined) fromFile++;
        const { zone: abbrev, ...local } = localTime(d);
        expect(local, `${tz} at ${t}`).toEqual(fields(d));
        expect(abbrev).toBe(type?.abbrev);
      }
      expect(fromFile).toBe(instants.length);
    },
  );

  it("falls back to V8's local time where the zone file cannot tell (a POSIX rule in $TZ)", () => {
    process.env.TZ = 'XYZ3ABC,M3.2.0,M11.1.0';
    const d = new Date(JUL_2026 * 1000);
    expect(localZoneAt('/', process.env.TZ, JUL_2026)).toBeUndefined();
    expect(localTime(d)).toEqual(fields(d));
  });

  it("is what Python's time.asctime() and strftime print, in the zone of $TZ", () => {
    process.env.TZ = 'America/New_York';
    // datetime.fromtimestamp(1783000000) in New York: 2026-07-02 09:46:40 EDT.
    const d = new Date(JUL_2026 * 1000);
    expect(pyAsctime(d)).toBe('Thu Jul  2 09:46:40 2026');
    expect(pyStrftime(d, '%Y-%m-%d %H:%M:%S %z %Z %j %a %I%p')).toBe('2026-07-02 09:46:40 -0400 EDT 183 Thu 09AM');
  });
});

describe('utcStamp', () => {
  it("is toISOString() without its Z: a minion load's _stamp", () => {
    for (const ms of [0, 1, 999, JAN_2026 * 1000 + 7, 253402300799999, -1000]) {
      expect(utcStamp(new Date(ms))).toBe(new Date(ms).toISOString().replace('Z', ''));
    }
  });
});
