/**
 * The few Python `str` operations Salt's id code leans on, so brine splits host files exactly as
 * Salt does (Python's whitespace set is not JavaScript's `\s`).
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
