/**
 * The `timezone` grain's abbreviation read from the system's TZif files, against what Python's
 * `datetime.fromtimestamp(t).astimezone().tzname()` printed for the same zone and instant.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { localTzAbbreviation, tzAbbreviation } from '../../../plugins/grains/tz-name';

const zone = (name: string) => readFileSync(`/usr/share/zoneinfo/${name}`);
const JAN_2026 = 1767225600;
const JUL_2026 = 1783000000;

describe('tzAbbreviation', () => {
  it.each([
    ['Europe/Paris', JAN_2026, 'CET'],
    ['Europe/Paris', JUL_2026, 'CEST'],
    ['America/New_York', JAN_2026, 'EST'],
    ['America/New_York', JUL_2026, 'EDT'],
    ['Asia/Kolkata', JUL_2026, 'IST'],
    ['Australia/Lord_Howe', JAN_2026, '+11'],
    ['Australia/Lord_Howe', JUL_2026, '+1030'],
    ['America/New_York', 0, 'EST'],
    ['UTC', JUL_2026, 'UTC'],
    ['Asia/Kolkata', 4102444800, 'IST'],
  ])('%s at %i is %s, as Python says', (name, t, expected) => {
    expect(tzAbbreviation(zone(name), t)).toBe(expected);
  });

  it('leaves a daylight-saving zone past its last transition to the caller (undefined)', () => {
    expect(tzAbbreviation(zone('Europe/Paris'), 4102444800)).toBeUndefined();
  });

  it('reads $TZ as glibc does: a zone name, a :name, a path; a POSIX rule or a missing file is undefined', () => {
    expect(localTzAbbreviation('/', 'Europe/Paris', JUL_2026)).toBe('CEST');
    expect(localTzAbbreviation('/', ':Europe/Paris', JAN_2026)).toBe('CET');
    expect(localTzAbbreviation('/', '/usr/share/zoneinfo/America/New_York', JUL_2026)).toBe('EDT');
    expect(localTzAbbreviation('/', 'XYZ3ABC,M3.2.0,M11.1.0', JUL_2026)).toBeUndefined();
    expect(localTzAbbreviation('/', '../../etc/passwd', JUL_2026)).toBeUndefined();
    expect(localTzAbbreviation('/nonexistent-root', undefined, JUL_2026)).toBeUndefined();
  });
});
