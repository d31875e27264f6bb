/**
 * Python's OrderedDict, as far as it shows: Salt's YAML renderer builds OrderedDicts, and the
 * nested outputter prints an OrderedDict's keys in order but sorts a plain dict's. brine's maps
 * are plain objects either way; an OrderedDict is one carrying this mark (a symbol key: not
 * enumerated, not serialised, lost on the wire, as Salt's OrderedDicts become dicts there).
 */
export const ORDERED_DICT: unique symbol = Symbol.for('brine.OrderedDict');

type Dict = Record<string, unknown>;

/** Mark a map as an OrderedDict; returns it. */
export function markOrdered<T extends object>(map: T): T {
  Object.defineProperty(map, ORDERED_DICT, { value: true, enumerable: false, configurable: true });
  return map;
}

export function isOrdered(value: unknown): boolean {
  return value !== null && typeof value === 'object' && (value as { [ORDERED_DICT]?: boolean })[ORDERED_DICT] === true;
}

/** A deep copy of plain data that keeps the OrderedDict marks (structuredClone drops them). */
export function deepCopy<T>(value: T): T {
  if (Array.isArray(value)) return value.map((v) => deepCopy(v)) as T;
  if (value !== null && typeof value === 'object' && !(value instanceof Uint8Array) && !(value instanceof Map)) {
    const proto = Object.getPrototypeOf(value);
    if (proto === Object.prototype || proto === null) {
      const out: Dict = {};
      for (const [k, v] of Object.entries(value as Dict))
        Object.defineProperty(out, k, { value: deepCopy(v), enumerable: true, writable: true, configurable: true });
      return (isOrdered(value) ? markOrdered(out) : out) as T;
    }
  }
  return value;
}
