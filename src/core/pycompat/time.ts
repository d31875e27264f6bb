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

/**
 * Python's strftime in the C locale, in local time, for the directives Salt's users write (Jinja's
 * `strftime` filter, the log options' date formats); others are left as written, as glibc does.
 */
export function pyStrftime(d: Date, fmt: string): string {
  const pad = (n: number, w = 2) => String(n).padStart(w, '0');
  const days = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
  const months = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
  const start = new Date(d.getFullYear(), 0, 1);
  const yday = Math.floor((d.getTime() - start.getTime() + (start.getTimezoneOffset() - d.getTimezoneOffset()) * 60000) / 86400000) + 1;
  const off = -d.getTimezoneOffset();
  return fmt.replace(/%([a-zA-Z%])/g, (m, c: string) => {
    switch (c) {
      case 'Y':
        return String(d.getFullYear());
      case 'y':
        return pad(d.getFullYear() % 100);
      case 'm':
        return pad(d.getMonth() + 1);
      case 'd':
        return pad(d.getDate());
      case 'H':
        return pad(d.getHours());
      case 'I':
        return pad(d.getHours() % 12 || 12);
      case 'M':
        return pad(d.getMinutes());
      case 'S':
        return pad(d.getSeconds());
      case 'f':
        return pad(d.getMilliseconds() * 1000, 6);
      case 'p':
        return d.getHours() < 12 ? 'AM' : 'PM';
      case 'a':
        return days[d.getDay()].slice(0, 3);
      case 'A':
        return days[d.getDay()];
      case 'b':
        return months[d.getMonth()].slice(0, 3);
      case 'B':
        return months[d.getMonth()];
      case 'j':
        return pad(yday, 3);
      case 'w':
        return String(d.getDay());
      case 'z':
        return `${off < 0 ? '-' : '+'}${pad(Math.floor(Math.abs(off) / 60))}${pad(Math.abs(off) % 60)}`;
      case 's':
        return String(Math.floor(d.getTime() / 1000));
      case '%':
        return '%';
      default:
        return m;
    }
  });
}
