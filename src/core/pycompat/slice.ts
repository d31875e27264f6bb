/**
 * Python's slice `seq[start:stop:step]` on a list or a str (by code point, as Python indexes a
 * str), with Python's clamping of out-of-range bounds and negative indices.
 */
export class SliceError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SliceError';
  }
}

function bound(value: number | null, len: number, step: number, isStart: boolean): number {
  if (value === null) {
    if (step > 0) return isStart ? 0 : len;
    return isStart ? len - 1 : -1;
  }
  let v = value < 0 ? value + len : value;
  if (step > 0) v = Math.min(Math.max(v, 0), len);
  else v = Math.min(Math.max(v, -1), len - 1);
  return v;
}

function index(value: unknown): number | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'number' && Number.isInteger(value)) return value;
  throw new SliceError('slice indices must be integers or None or have an __index__ method');
}

/** `seq[start:stop:step]`; `null` for an omitted bound. */
export function pySlice<T>(seq: readonly T[], start: unknown, stop: unknown, step: unknown): T[];
export function pySlice(seq: string, start: unknown, stop: unknown, step: unknown): string;
export function pySlice(seq: string | readonly unknown[], start: unknown, stop: unknown, step: unknown): string | unknown[] {
  const items = typeof seq === 'string' ? [...seq] : seq;
  const s = index(step) ?? 1;
  if (s === 0) throw new SliceError('slice step cannot be zero');
  const len = items.length;
  const from = bound(index(start), len, s, true);
  const to = bound(index(stop), len, s, false);
  const out: unknown[] = [];
  for (let i = from; s > 0 ? i < to : i > to; i += s) out.push(items[i]);
  return typeof seq === 'string' ? out.join('') : out;
}
