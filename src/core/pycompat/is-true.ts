/**
 * Salt's `salt.utils.data.is_true`: the truth of a value as Salt's modules read their boolean
 * options. A value that Python's `int()` or `float()` accepts is true when greater than 0; a
 * string is true only when it is "true" in any case; anything else by Python's `bool()`.
 *
 * @example
 * isTrue('True'); isTrue(' 1 '); isTrue(2.5); isTrue([0]);  // true
 * isTrue('yes');  isTrue('0');   isTrue(-1);  isTrue('nan'); // false
 */
export function isTrue(value: unknown): boolean {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'number') return value > 0;
  if (typeof value === 'bigint') return value > 0n;
  if (typeof value === 'string') {
    const n = pyNumber(value);
    if (n !== undefined) return n > 0;
    return value.toLowerCase() === 'true';
  }
  if (value === null || value === undefined) return false;
  if (Array.isArray(value) || Buffer.isBuffer(value) || value instanceof Uint8Array) return value.length > 0;
  if (value instanceof Map || value instanceof Set) return value.size > 0;
  if (typeof value === 'object') return Object.keys(value).length > 0;
  return Boolean(value);
}

// Python's int()/float() of a string: surrounding whitespace allowed, '_' between digits,
// inf/infinity/nan in any case.
const PY_INT = /^[-+]?\d+(?:_\d+)*$/;
const DIGITS = String.raw`\d+(?:_\d+)*`;
const PY_FLOAT = new RegExp(String.raw`^[-+]?(?:${DIGITS}(?:\.(?:${DIGITS})?)?|\.${DIGITS})(?:[eE][-+]?${DIGITS})?$`);
const PY_SPECIAL = /^[-+]?(?:inf|infinity|nan)$/i;

/** The number Python's `int(s)` or `float(s)` gives for a string, or undefined when both refuse it. */
export function pyNumber(text: string): number | undefined {
  const s = text.trim();
  if (PY_INT.test(s) || PY_FLOAT.test(s)) return Number(s.replace(/_/g, ''));
  if (PY_SPECIAL.test(s)) {
    if (/nan/i.test(s)) return Number.NaN;
    return s.startsWith('-') ? -Infinity : Infinity;
  }
  return undefined;
}
