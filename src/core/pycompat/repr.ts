/**
 * Python's repr()/str() of decoded Salt data, which the txt, raw and pprint outputters print.
 * Values are what the msgpack codec yields: null, booleans, numbers (a whole number is a
 * Python int), bigint, strings, Buffers (Python bytes), arrays, plain objects and Maps.
 */
import { BrineError } from '../errors';
import { PyFloat } from './float';

/** A value no outputter can print (a function, a symbol, data nested too deeply), or an indent it cannot use. */
export class ReprError extends BrineError<'BAD_OUTPUT_DATA' | 'BAD_OUTPUT_INDENT'> {}

/** Data an outputter cannot print (a function, a symbol, a class instance). */
export function unprintable(value: unknown): ReprError {
  const kind = value === null ? 'null' : typeof value === 'object' ? (value.constructor?.name ?? 'object') : typeof value;
  return new ReprError('BAD_OUTPUT_DATA', `cannot print a ${kind} value: outputters take JSON/msgpack-like data`);
}

export function isBytes(value: unknown): value is Uint8Array {
  return value instanceof Uint8Array;
}

/** Plain objects and Maps are Python dicts. */
export function isMapping(value: unknown): value is Record<string, unknown> | Map<unknown, unknown> {
  if (value instanceof Map) return true;
  if (value === null || typeof value !== 'object' || Array.isArray(value) || isBytes(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * A Python dict held as a plain object (what YAML, JSON and msgpack with str keys give); a Map
 * (non-str keys), bytes, arrays and class instances are not.
 *
 * @example
 * isDict({ a: 1 }) // true
 * isDict(Buffer.from('x')) // false
 */
export function isDict(value: unknown): value is Record<string, unknown> {
  return isMapping(value) && !(value instanceof Map);
}

/** A dict's items in insertion order, keys as text. */
export function entriesOf(value: Record<string, unknown> | Map<unknown, unknown>): [string, unknown][] {
  if (value instanceof Map) return [...value.entries()].map(([k, v]) => [keyText(k), v]);
  return Object.entries(value);
}

function keyText(key: unknown): string {
  if (typeof key === 'string') return key;
  if (key === null || key === undefined) return 'None';
  if (typeof key === 'boolean') return key ? 'True' : 'False';
  if (typeof key === 'number' || typeof key === 'bigint') return pyNumber(key);
  if (isBytes(key)) return pyRepr(key);
  throw unprintable(key);
}

/** Python's sorted() order for str keys: by code point (JS sort compares UTF-16 units). */
export function compareCodePoints(a: string, b: string): number {
  const ai = a[Symbol.iterator]();
  const bi = b[Symbol.iterator]();
  for (;;) {
    const x = ai.next();
    const y = bi.next();
    if (x.done || y.done) return x.done && y.done ? 0 : x.done ? -1 : 1;
    const cx = x.value.codePointAt(0)!;
    const cy = y.value.codePointAt(0)!;
    if (cx !== cy) return cx - cy;
  }
}

/**
 * The order Python's `sorted()` gives dict keys in pprint (its `_safe_key`): numbers (bool, int,
 * float) by value, str by code point, bytes by byte; keys of different kinds by their type's name.
 */
export function comparePyKeys(a: unknown, b: unknown): number {
  const numeric = (v: unknown) => typeof v === 'number' || typeof v === 'bigint' || typeof v === 'boolean';
  if (numeric(a) && numeric(b)) {
    const x = typeof a === 'boolean' ? Number(a) : (a as number | bigint);
    const y = typeof b === 'boolean' ? Number(b) : (b as number | bigint);
    return x < y ? -1 : x > y ? 1 : 0;
  }
  if (typeof a === 'string' && typeof b === 'string') return compareCodePoints(a, b);
  if (isBytes(a) && isBytes(b)) return Buffer.compare(a, b);
  const ta = `<class '${pyTypeName(a)}'>`;
  const tb = `<class '${pyTypeName(b)}'>`;
  return ta < tb ? -1 : ta > tb ? 1 : 0;
}

/** Python's repr of a float: shortest round-trip digits, exponent form below 1e-4 or from 1e16. */
export function pyFloat(x: number): string {
  if (Number.isNaN(x)) return 'nan';
  if (x === Infinity) return 'inf';
  if (x === -Infinity) return '-inf';
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  const [mant, expText] = x.toExponential().split('e');
  const exp = Number(expText);
  const negative = mant.startsWith('-');
  const digits = mant.replace('-', '').replace('.', '');
  const sign = negative ? '-' : '';
  if (exp < -4 || exp >= 16) {
    const m = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    return `${sign}${m}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  }
  if (exp < 0) return `${sign}0.${'0'.repeat(-exp - 1)}${digits}`;
  if (digits.length <= exp + 1) return `${sign}${digits}${'0'.repeat(exp + 1 - digits.length)}.0`;
  return `${sign}${digits.slice(0, exp + 1)}.${digits.slice(exp + 1)}`;
}

/** A JS number as Python prints it: whole numbers within 2^53 are ints, the rest floats. */
export function pyNumber(x: number | bigint): string {
  if (typeof x === 'bigint') return x.toString();
  if (Number.isInteger(x) && Math.abs(x) <= Number.MAX_SAFE_INTEGER && !Object.is(x, -0)) return String(x);
  return pyFloat(x);
}

const NON_PRINTABLE = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]/u;

function hexEscape(cp: number): string {
  if (cp <= 0xff) return '\\x' + cp.toString(16).padStart(2, '0');
  if (cp <= 0xffff) return '\\u' + cp.toString(16).padStart(4, '0');
  return '\\U' + cp.toString(16).padStart(8, '0');
}

/** Python's repr of a str. */
export function pyStrRepr(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of s) {
    if (ch === quote || ch === '\\') out += '\\' + ch;
    else if (ch === '\t') out += '\\t';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch !== ' ' && NON_PRINTABLE.test(ch)) out += hexEscape(ch.codePointAt(0)!);
    else out += ch;
  }
  return out + quote;
}

/** Python's repr of bytes. */
export function pyBytesRepr(b: Uint8Array): string {
  const hasSingle = b.includes(0x27);
  const quote = hasSingle && !b.includes(0x22) ? '"' : "'";
  let out = 'b' + quote;
  for (const byte of b) {
    const ch = String.fromCharCode(byte);
    if (ch === quote || ch === '\\') out += '\\' + ch;
    else if (byte === 9) out += '\\t';
    else if (byte === 10) out += '\\n';
    else if (byte === 13) out += '\\r';
    else if (byte < 0x20 || byte >= 0x7f) out += '\\x' + byte.toString(16).padStart(2, '0');
    else out += ch;
  }
  return out + quote;
}

/** Python's repr() of decoded data; dict keys in insertion order (as str(dict) prints them). */
export function pyRepr(value: unknown, sortKeys = false, depth = 0): string {
  if (depth > 500) throw new ReprError('BAD_OUTPUT_DATA', 'data nested too deeply (or circular) to print');
  if (value === null || value === undefined) return 'None';
  if (value === true) return 'True';
  if (value === false) return 'False';
  if (typeof value === 'number' || typeof value === 'bigint') return pyNumber(value);
  if (value instanceof PyFloat) return pyFloat(value.value);
  if (typeof value === 'string') return pyStrRepr(value);
  if (isBytes(value)) return pyBytesRepr(value);
  if (Array.isArray(value)) {
    const items = value.map((v) => pyRepr(v, sortKeys, depth + 1));
    if (!isTuple(value)) return '[' + items.join(', ') + ']';
    return items.length === 1 ? `(${items[0]},)` : `(${items.join(', ')})`;
  }
  if (isMapping(value)) {
    // A Map may hold non-string keys (msgpack allows them); Python shows those unquoted.
    const items: [unknown, string, unknown][] =
      value instanceof Map ? [...value.entries()].map(([k, v]) => [k, keyText(k), v]) : Object.entries(value).map(([k, v]) => [k, k, v]);
    if (sortKeys) items.sort((a, b) => comparePyKeys(a[0], b[0]));
    return '{' + items.map(([k, , v]) => `${pyRepr(k, sortKeys, depth + 1)}: ${pyRepr(v, sortKeys, depth + 1)}`).join(', ') + '}';
  }
  throw unprintable(value);
}

/** Python's str(): a str as itself, anything else as repr. */
export function pyStr(value: unknown): string {
  return typeof value === 'string' ? value : pyRepr(value);
}

/** Python's repr of a tuple: `()`, `(1,)`, `(1, 'two')`. */
export function pyTupleRepr(items: readonly unknown[]): string {
  return pyRepr(pyTuple(items));
}

const TUPLE = Symbol('brine.tuple');

/**
 * A Python tuple: an array (it indexes, iterates and encodes as a list) that prints as a tuple.
 *
 * @example
 * pyRepr(pyTuple(['a', 1])) // "('a', 1)"
 */
export function pyTuple<T>(items: Iterable<T>): T[] {
  const out = [...items];
  Object.defineProperty(out, TUPLE, { value: true });
  return out;
}

/** Whether an array is a tuple made by {@link pyTuple}. */
export function isTuple(value: unknown): boolean {
  return Array.isArray(value) && (value as unknown as Record<symbol, unknown>)[TUPLE] === true;
}

/** Python's type name of decoded data (`type(x).__name__`): NoneType, bool, int, float, str, bytes, list, dict. */
export function pyTypeName(value: unknown): string {
  if (value === null || value === undefined) return 'NoneType';
  if (typeof value === 'boolean') return 'bool';
  if (typeof value === 'bigint') return 'int';
  if (typeof value === 'number') return pyNumber(value).match(/^-?\d+$/) ? 'int' : 'float';
  if (value instanceof PyFloat) return 'float';
  if (typeof value === 'string') return 'str';
  if (isBytes(value)) return 'bytes';
  if (Array.isArray(value)) return isTuple(value) ? 'tuple' : 'list';
  if (isMapping(value)) return 'dict';
  throw unprintable(value);
}
