import { describe, expect, it } from 'vitest';
import { MONTHS, pyAsctime } from '../../../src/core/pycompat/time';

describe("Python's time.asctime()", () => {
  it('pads a one-digit day with a space and the time with zeros, in local time', () => {
    expect(pyAsctime(new Date(2026, 11, 2, 12, 56, 12))).toBe('Wed Dec  2 12:56:12 2026');
    expect(pyAsctime(new Date(1999, 0, 31, 3, 4, 5))).toBe('Sun Jan 31 03:04:05 1999');
    expect(pyAsctime(new Date(2024, 1, 29, 23, 59, 59))).toBe('Thu Feb 29 23:59:59 2024');
  });

  it('names the months as calendar.month_abbr does', () => {
    expect(MONTHS).toEqual(['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec']);
  });
});
