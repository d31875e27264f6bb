/** Python's `datetime.strftime` in the C locale, for the directives of its documentation (local time). */
const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

const pad = (n: number, width = 2): string => String(n).padStart(width, '0');

/** Day of the year, 1-based. */
function yday(d: Date): number {
  return Math.round((Date.UTC(d.getFullYear(), d.getMonth(), d.getDate()) - Date.UTC(d.getFullYear(), 0, 1)) / 86_400_000) + 1;
}

/** Week of the year with weeks starting on `first` (0 = Sunday for %U, 1 = Monday for %W). */
function week(d: Date, first: number): number {
  return Math.floor((yday(d) - 1 + 7 - ((d.getDay() - first + 7) % 7)) / 7);
}

function zone(d: Date): string {
  const off = -d.getTimezoneOffset();
  return `${off < 0 ? '-' : '+'}${pad(Math.floor(Math.abs(off) / 60))}${pad(Math.abs(off) % 60)}`;
}

export function strftime(format: string, d: Date): string {
  const h12 = d.getHours() % 12 || 12;
  const directives: Record<string, () => string> = {
    a: () => DAYS[d.getDay()].slice(0, 3),
    A: () => DAYS[d.getDay()],
    w: () => String(d.getDay()),
    d: () => pad(d.getDate()),
    b: () => MONTHS[d.getMonth()].slice(0, 3),
    B: () => MONTHS[d.getMonth()],
    m: () => pad(d.getMonth() + 1),
    y: () => pad(d.getFullYear() % 100),
    Y: () => String(d.getFullYear()),
    H: () => pad(d.getHours()),
    I: () => pad(h12),
    p: () => (d.getHours() < 12 ? 'AM' : 'PM'),
    M: () => pad(d.getMinutes()),
    S: () => pad(d.getSeconds()),
    f: () => pad(d.getMilliseconds() * 1000, 6),
    z: () => zone(d),
    Z: () =>
      new Intl.DateTimeFormat('en-US', { timeZoneName: 'short' }).formatToParts(d).find((p) => p.type === 'timeZoneName')?.value ?? '',
    j: () => pad(yday(d), 3),
    U: () => pad(week(d, 0)),
    W: () => pad(week(d, 1)),
    c: () =>
      `${DAYS[d.getDay()].slice(0, 3)} ${MONTHS[d.getMonth()].slice(0, 3)} ${String(d.getDate()).padStart(2, ' ')} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())} ${d.getFullYear()}`,
    x: () => `${pad(d.getMonth() + 1)}/${pad(d.getDate())}/${pad(d.getFullYear() % 100)}`,
    X: () => `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`,
    s: () => String(Math.floor(d.getTime() / 1000)),
    '%': () => '%',
  };
  return format.replace(/%(.)/gs, (all, c: string) => (directives[c] ? directives[c]() : all));
}
