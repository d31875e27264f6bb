import { pyEqual } from './equal';
import { deepCopy } from './ordered';
import { isDict } from './repr';

type Mapping = Record<string, unknown>;

/**
 * Salt's `salt.utils.dictupdate.update(dest, upd, merge_lists=...)`: nested dicts merge key by
 * key; with `mergeLists`, a list under the same key gains the new items it lacks (Python `==`);
 * anything else in `upd` replaces what `dest` holds. Changes and returns `dest`.
 *
 * @example
 * dictUpdate({ a: { b: 1, c: 2 } }, { a: { c: 3 }, d: 4 }) // { a: { b: 1, c: 3 }, d: 4 }
 * dictUpdate({ l: [1, 2] }, { l: [2, 3] }, { mergeLists: true }) // { l: [1, 2, 3] }
 */
export function dictUpdate(dest: Mapping, upd: Mapping, options: { mergeLists?: boolean } = {}): Mapping {
  for (const [k, v] of Object.entries(upd)) {
    const cur = Object.prototype.hasOwnProperty.call(dest, k) ? dest[k] : undefined;
    if (isDict(cur) && isDict(v)) dictUpdate(cur, v, options);
    else if (options.mergeLists && Array.isArray(cur) && Array.isArray(v)) {
      const merged = deepCopy(cur);
      for (const x of v) if (!merged.some((y) => pyEqual(x, y))) merged.push(x);
      setOwn(dest, k, merged);
    } else setOwn(dest, k, v);
  }
  return dest;
}

// A `__proto__` key from decoded data is data: define it rather than change dest's prototype.
function setOwn(dest: Mapping, k: string, v: unknown): void {
  Object.defineProperty(dest, k, { value: v, writable: true, enumerable: true, configurable: true });
}
