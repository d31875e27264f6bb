/**
 * The tables test/core/pycompat/fixtures/make-tables.py printed from real Python 3.11 and Salt
 * 3007.10, decoded into the values brine's msgpack codec would hand over.
 */
import tables from './fixtures/python-tables.json';

export { tables };

/** A tagged fixture value as decoded Salt data: floats, big ints, bytes, non-str-keyed dicts. */
export function decode(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(decode);
  if (v === null || typeof v !== 'object') return v;
  const o = v as Record<string, unknown>;
  if ('$f' in o) {
    const s = o.$f as string;
    return s === 'nan' ? NaN : s === 'inf' ? Infinity : s === '-inf' ? -Infinity : Number(s);
  }
  if ('$i' in o) return BigInt(o.$i as string);
  if ('$b' in o) return Buffer.from(o.$b as string, 'hex');
  if ('$t' in o) return (o.$t as unknown[]).map(decode);
  if ('$map' in o) return new Map((o.$map as [unknown, unknown][]).map(([k, x]) => [decode(k), decode(x)]));
  return Object.fromEntries(Object.entries(o).map(([k, x]) => [k, decode(x)]));
}

/**
 * Whether a fixture value holds a float with a whole value inside 2^53 (1.0, -0.0 aside): a
 * JavaScript number cannot tell it from the int, so brine prints it as Python prints the int.
 */
export function holdsWholeFloat(v: unknown): boolean {
  if (Array.isArray(v)) return v.some(holdsWholeFloat);
  if (v === null || typeof v !== 'object') return false;
  const o = v as Record<string, unknown>;
  if ('$f' in o) {
    const n = Number(o.$f);
    return Number.isInteger(n) && Math.abs(n) <= Number.MAX_SAFE_INTEGER && !Object.is(n, -0);
  }
  if ('$map' in o) return (o.$map as unknown[][]).some((kv) => kv.some(holdsWholeFloat));
  if ('$t' in o) return holdsWholeFloat(o.$t);
  return Object.values(o).some(holdsWholeFloat);
}
