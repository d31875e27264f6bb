import { PyFloat } from './float';
import { isBytes, isMapping } from './repr';

/**
 * Python's `==` for decoded data: deep, dict key order blind, and numeric across bool, int and
 * float (`True == 1 == 1.0`), as `x in list` compares in Python.
 *
 * @example
 * pyEqual({ a: [1, true] }, { a: [1.0, 1] }) // true
 * pyEqual('1', 1) // false
 */
export function pyEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  // Loose equality compares a bigint and a double exactly, as Python compares int and float.
  // eslint-disable-next-line eqeqeq
  if (isNumeric(a) && isNumeric(b)) return toNumber(a) == toNumber(b);
  if (isBytes(a) && isBytes(b)) return a.length === b.length && a.every((x, i) => x === b[i]);
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => pyEqual(x, b[i]));
  if (isMapping(a) && isMapping(b)) {
    const ea = entries(a);
    const eb = entries(b);
    return ea.length === eb.length && ea.every(([k, v]) => eb.some(([k2, v2]) => pyEqual(k, k2) && pyEqual(v, v2)));
  }
  if ((a === null || a === undefined) && (b === null || b === undefined)) return true;
  return false;
}

function isNumeric(v: unknown): v is number | bigint | boolean | PyFloat {
  return v instanceof PyFloat || typeof v === 'number' || typeof v === 'bigint' || typeof v === 'boolean';
}

function toNumber(v: number | bigint | boolean | PyFloat): number | bigint {
  if (v instanceof PyFloat) return v.value;
  if (typeof v === 'boolean') return v ? 1 : 0;
  // Compare bigints exactly when they fit; otherwise as doubles, as Python compares int and float.
  if (typeof v === 'bigint') return v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v;
  return v;
}

function entries(d: Record<string, unknown> | Map<unknown, unknown>): [unknown, unknown][] {
  return d instanceof Map ? [...d.entries()] : Object.entries(d);
}
