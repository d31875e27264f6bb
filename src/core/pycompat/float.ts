/**
 * A Python float whose value is whole (`1.0`, `4 / 2`, `2.5 | round`): a JS number cannot tell
 * 1.0 from 1, and Python prints them differently. Only whole floats are boxed; any other float
 * is a plain number (it prints as a float already). Made by brine's Jinja for literals and
 * arithmetic; pycompat's printers (repr, json, yaml) print it as Python prints a float, and
 * `valueOf` keeps JavaScript arithmetic on it right.
 *
 * @example
 * pyRepr([pyFloatOf(1), pyFloatOf(0.5)]) // '[1.0, 0.5]'
 */
export class PyFloat {
  constructor(readonly value: number) {}

  valueOf(): number {
    return this.value;
  }

  toJSON(): number {
    return this.value;
  }
}

/** A float result: boxed when whole (so that it prints `1.0`), a plain number otherwise. */
export function pyFloatOf(value: number): number | PyFloat {
  return Number.isInteger(value) ? new PyFloat(value) : value;
}

/** Whether a value is a Python float (a boxed whole float, or a number with a fraction, inf or nan). */
export function isPyFloat(value: unknown): boolean {
  return value instanceof PyFloat || (typeof value === 'number' && !Number.isInteger(value));
}

/** Plain data again: boxed floats become numbers (before data leaves a template). */
export function unboxFloats(value: unknown): unknown {
  if (value instanceof PyFloat) return value.value;
  if (Array.isArray(value)) return value.some(needsUnbox) ? value.map(unboxFloats) : value;
  if (value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    if (!Object.values(value).some(needsUnbox)) return value;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = unboxFloats(v);
    return out;
  }
  return value;
}

function needsUnbox(v: unknown): boolean {
  if (v instanceof PyFloat) return true;
  if (Array.isArray(v)) return v.some(needsUnbox);
  if (v !== null && typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype) return Object.values(v).some(needsUnbox);
  return false;
}
