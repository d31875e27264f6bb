import { isMapping } from './repr';
import { pyIntText } from './text';
import { yamlifyArg } from './yamlify';

type Dict = Record<string, unknown> | Map<unknown, unknown>;

/**
 * Salt's `salt.utils.data.traverse_dict_and_list`: walk `data` along `key` (split at `delimiter`),
 * dicts by key and lists by index (Python's `int()` of the part, negative from the end) or, for a
 * part that is no index, into the first dict of the list holding it; `defaultValue` when the walk
 * cannot go on. Only a dict's own keys count: `constructor` or `__proto__` are never found on a
 * plain object. As in Salt, a part missing from a dict is tried again as YAML reads it, so `1`
 * finds an integer key of a Map.
 *
 * @example
 * traverse({ a: { b: [10, 20] } }, 'a:b:1') // 20
 * traverse({ a: [{ b: 1 }] }, 'a:b') // 1
 * traverse({ a: [{ b: 1 }] }, 'a:constructor', 'none') // 'none'
 */
export function traverse(
  data: unknown,
  key: string | readonly (string | number)[],
  defaultValue: unknown = null,
  delimiter = ':',
): unknown {
  const parts = typeof key === 'string' ? key.split(delimiter) : key;
  let ptr = data;
  for (const each of parts) {
    if (Array.isArray(ptr)) {
      const idx = typeof each === 'number' ? each : pyIntText(each);
      const lookup = idx ?? each;
      // Salt 3007 looks for the part in the list's dicts first, as a key, even when it is a number.
      const holder = ptr.find((x) => isMapping(x) && dictHas(x, lookup)) as Dict | undefined;
      if (holder !== undefined) ptr = dictGet(holder, lookup);
      else if (idx === undefined) return defaultValue;
      else {
        const real = idx < 0 ? ptr.length + idx : idx;
        if (real < 0 || real >= ptr.length) return defaultValue;
        ptr = ptr[real];
      }
    } else if (isMapping(ptr)) {
      if (dictHas(ptr, each)) ptr = dictGet(ptr, each);
      else {
        const loaded = typeof each === 'string' ? yamlifyArg(each) : each;
        if (loaded === each || !dictHas(ptr, loaded)) return defaultValue;
        ptr = dictGet(ptr, loaded);
      }
    } else {
      return defaultValue;
    }
  }
  return ptr;
}

/** Whether a dict holds a key; a plain object's own string keys only. */
function dictHas(d: Dict, key: unknown): boolean {
  if (d instanceof Map) return d.has(mapKey(d, key));
  return typeof key === 'string' && Object.prototype.hasOwnProperty.call(d, key);
}

function dictGet(d: Dict, key: unknown): unknown {
  return d instanceof Map ? d.get(mapKey(d, key)) : d[String(key)];
}

/** The Map key Python would find for `key`: True and 1, False and 0 are one key in a dict. */
function mapKey(d: Map<unknown, unknown>, key: unknown): unknown {
  if (d.has(key)) return key;
  if (typeof key === 'boolean') return Number(key);
  if (key === 1 || key === 0) return key === 1;
  return key;
}
