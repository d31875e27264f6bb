/**
 * Python's `time` module's text forms of a moment, in local time (local-time.ts: the zone file
 * libc reads, as Python's time module does through libc).
 *
 *   pyAsctime(new Date(2026, 11, 2, 12, 56, 12)) // 'Wed Dec  2 12:56:12 2026'
 */
import { localTime } from './local-time';

/** Month abbreviations, as Python's calendar.month_abbr[1:]. */
export const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** Day abbreviations from Sunday, as JavaScript's getDay() counts (Python's calendar.day_abbr starts on Monday). */
const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];

const two = (n: number): string => String(n).padStart(2, '0');

/** time.asctime(): `Wed Dec  2 12:56:12 2026`, the day of the month padded with a space. */
export function pyAsctime(d: Date = new Date()): string {
  const t = localTime(d);
  const time = `${two(t.hours)}:${two(t.minutes)}:${two(t.seconds)}`;
  return `${DAYS[t.day]} ${MONTHS[t.month]} ${String(t.date).padStart(2, ' ')} ${time} ${t.year}`;
}

/**
 * Python's strftime in the C locale, in local time, for the directives of its documentation
 * (Jinja's `strftime` filter, the log options' date formats, `status` module); others are left as
 * written, as glibc does.
 */
export function pyStrftime(d: Date, fmt: string): string {
  const pad = (n: number, w = 2) => String(n).padStart(w, '0');
  const days = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
  const months = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
  const t = localTime(d);
  const yday = (Date.UTC(t.year, t.month, t.date) - Date.UTC(t.year, 0, 1)) / 86400000 + 1;
  // Week of the year with weeks starting on `first` (0: Sunday, %U; 1: Monday, %W).
  const week = (first: number) => Math.floor((yday - 1 + 7 - ((t.day - first + 7) % 7)) / 7);
  const off = t.offsetMinutes;
  return fmt.replace(/%([a-zA-Z%])/g, (m, c: string) => {
    switch (c) {
      case 'Y':
        return String(t.year);
      case 'y':
        return pad(t.year % 100);
      case 'm':
        return pad(t.month + 1);
      case 'd':
        return pad(t.date);
      case 'H':
        return pad(t.hours);
      case 'I':
        return pad(t.hours % 12 || 12);
      case 'M':
        return pad(t.minutes);
      case 'S':
        return pad(t.seconds);
      case 'f':
        return pad(t.milliseconds * 1000, 6);
      case 'p':
        return t.hours < 12 ? 'AM' : 'PM';
      case 'a':
        return days[t.day].slice(0, 3);
      case 'A':
        return days[t.day];
      case 'b':
        return months[t.month].slice(0, 3);
      case 'B':
        return months[t.month];
      case 'j':
        return pad(yday, 3);
      case 'w':
        return String(t.day);
      case 'U':
        return pad(week(0));
      case 'W':
        return pad(week(1));
      case 'c':
        return `${days[t.day].slice(0, 3)} ${months[t.month].slice(0, 3)} ${String(t.date).padStart(2, ' ')} ${pad(t.hours)}:${pad(t.minutes)}:${pad(t.seconds)} ${t.year}`;
      case 'x':
        return `${pad(t.month + 1)}/${pad(t.date)}/${pad(t.year % 100)}`;
      case 'X':
        return `${pad(t.hours)}:${pad(t.minutes)}:${pad(t.seconds)}`;
      case 'Z':
        return (
          t.zone ??
          new Intl.DateTimeFormat('en-US', { timeZoneName: 'short' }).formatToParts(d).find((p) => p.type === 'timeZoneName')?.value ??
          ''
        );
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
