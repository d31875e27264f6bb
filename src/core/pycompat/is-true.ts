import { PyFloat } from './float';
import { isMapping } from './repr';
import { pyFloatText, pyIntText } from './text';

/**
 * Salt's `salt.utils.data.is_true`: what a user-given value means as a switch. Numbers (and
 * strings Python's `int()`/`float()` read, such as `' 2 '` or `'1_000'`) are true above zero;
 * other strings only when they spell `true` in any case (so `'yes'` and `'on'` are false); anything
 * else by Python truthiness (empty list or dict false).
 *
 * @example
 * isTrue('True') // true
 * isTrue('0') // false
 * isTrue('yes') // false, as in Salt
 */
export function isTrue(value: unknown): boolean {
  if (typeof value === 'boolean') return value;
  // int() first: 0.5 truncates to 0 and is false. (Python raises OverflowError for an infinite
  // float; brine answers by its sign.)
  if (typeof value === 'number') return Number.isFinite(value) ? Math.trunc(value) > 0 : value > 0;
  if (typeof value === 'bigint') return value > 0n;
  if (typeof value === 'string') {
    const n = pyIntText(value) ?? pyFloatText(value);
    if (n !== undefined) return n > 0;
    return value.toLowerCase() === 'true';
  }
  return pyTruthy(value);
}

/** Python's `bool(value)` for decoded data: empty containers, bytes, zero, None and '' are false; other objects true. */
export function pyTruthy(value: unknown): boolean {
  if (value === null || value === undefined) return false;
  if (typeof value === 'string') return value !== '';
  if (typeof value === 'number') return value !== 0 && !Number.isNaN(value);
  if (value instanceof PyFloat) return value.value !== 0;
  if (typeof value === 'bigint') return value !== 0n;
  if (Array.isArray(value)) return value.length > 0;
  if (value instanceof Uint8Array) return value.length > 0;
  if (value instanceof Map) return value.size > 0;
  if (isMapping(value)) return Object.keys(value).length > 0;
  return Boolean(value);
}
