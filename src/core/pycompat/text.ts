/**
 * Python `str` operations Salt's code leans on (Python's whitespace and line-break sets are not
 * JavaScript's `\s` and `\n`).
 */
const WS = '\\t\\n\\v\\f\\r\\x1c-\\x20\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000';
const LEADING = new RegExp(`^[${WS}]+`);
const TRAILING = new RegExp(`[${WS}]+$`);
const RUNS = new RegExp(`[${WS}]+`);

/** `s.strip()`. */
export function pyStrip(s: string): string {
  return s.replace(LEADING, '').replace(TRAILING, '');
}

/** `s.split()` with no separator: runs of whitespace, no empty fields. */
export function pySplit(s: string): string[] {
  const stripped = pyStrip(s);
  return stripped === '' ? [] : stripped.split(RUNS);
}

/** The lines `for line in open(path)` yields (universal newlines), without their endings. */
export function pyLines(text: string): string[] {
  const lines = text.split(/\r\n|\r|\n/);
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** Python's str.splitlines() (no line ends kept): \n, \r, \r\n, \v, \f, \x1c-\x1e, \x85, \u2028, \u2029. */
export function pySplitlines(s: string, keepEnds = false): string[] {
  const lines: string[] = [];
  const re = /\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]/g;
  let start = 0;
  for (let m = re.exec(s); m; m = re.exec(s)) {
    lines.push(s.slice(start, keepEnds ? m.index + m[0].length : m.index));
    start = m.index + m[0].length;
  }
  if (start < s.length) lines.push(s.slice(start));
  return lines;
}

// int() and float() strip whitespace as str.strip() does, except \x1c-\x1f.
const NUM_WS = '\\t\\n\\v\\f\\r\\x20\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000';
const NUM_EDGES = new RegExp(`^[${NUM_WS}]+|[${NUM_WS}]+$`, 'g');

function numberStrip(s: string): string {
  return s.replace(NUM_EDGES, '');
}

const DIGITS = '[0-9](?:_?[0-9])*';
const INT_TEXT = new RegExp(`^[+-]?${DIGITS}$`);
const FLOAT_TEXT = new RegExp(`^[+-]?(?:(?:${DIGITS}(?:\\.(?:${DIGITS})?)?|\\.${DIGITS})(?:[eE][+-]?${DIGITS})?|inf(?:inity)?|nan)$`, 'i');

/**
 * Python's `int(s)` for a str: optional sign, whitespace around, `_` between digits; undefined
 * where Python raises ValueError. Beyond 2^53 the number is the nearest double.
 *
 * @example
 * pyIntText(' -1_0 ') // -10
 */
export function pyIntText(s: string): number | undefined {
  const t = numberStrip(s);
  // `+ 0` turns -0 into 0: ints have no negative zero.
  return INT_TEXT.test(t) ? Number(t.replace(/_/g, '')) + 0 : undefined;
}

/**
 * Python's `float(s)` for a str: decimals, exponents, `inf`/`infinity`/`nan` in any case.
 *
 * @example
 * pyFloatText('1e3') // 1000
 */
export function pyFloatText(s: string): number | undefined {
  const t = numberStrip(s).replace(/_/g, '').toLowerCase();
  if (!FLOAT_TEXT.test(numberStrip(s))) return undefined;
  if (/^[+-]?nan$/.test(t)) return NaN;
  if (/^[+-]?inf(inity)?$/.test(t)) return t.startsWith('-') ? -Infinity : Infinity;
  return Number(t);
}
