import { isMapping } from './repr';

type Mapping = Record<string, unknown>;

/**
 * Salt's `salt.utils.dictupdate.update(dest, upd)`: nested dicts merge key by key, anything else
 * in `upd` replaces what `dest` holds. Changes and returns `dest`.
 *
 * @example
 * dictUpdate({ a: { b: 1, c: 2 } }, { a: { c: 3 }, d: 4 }) // { a: { b: 1, c: 3 }, d: 4 }
 */
export function dictUpdate(dest: Mapping, upd: Mapping): Mapping {
  for (const [k, v] of Object.entries(upd)) {
    const cur = Object.prototype.hasOwnProperty.call(dest, k) ? dest[k] : undefined;
    if (isMapping(cur) && !(cur instanceof Map) && isMapping(v) && !(v instanceof Map)) dictUpdate(cur, v);
    // A `__proto__` key from decoded data is data: define it rather than change dest's prototype.
    else Object.defineProperty(dest, k, { value: v, writable: true, enumerable: true, configurable: true });
  }
  return dest;
}
