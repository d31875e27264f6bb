/**
 * Python's `time` module's text forms of a moment, in local time.
 *
 *   pyAsctime(new Date(2026, 11, 2, 12, 56, 12)) // 'Wed Dec  2 12:56:12 2026'
 */

/** Month abbreviations, as Python's calendar.month_abbr[1:]. */
export const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** Day abbreviations from Sunday, as JavaScript's getDay() counts (Python's calendar.day_abbr starts on Monday). */
const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];

const two = (n: number): string => String(n).padStart(2, '0');

/** time.asctime(): `Wed Dec  2 12:56:12 2026`, the day of the month padded with a space. */
export function pyAsctime(d: Date = new Date()): string {
  const time = `${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}`;
  return `${DAYS[d.getDay()]} ${MONTHS[d.getMonth()]} ${String(d.getDate()).padStart(2, ' ')} ${time} ${d.getFullYear()}`;
}
