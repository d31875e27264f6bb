import { InvocationError, fnmatch } from 'brine/plugin';

type Mapping = Record<string, unknown>;

function isMapping(v: unknown): v is Mapping {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !Buffer.isBuffer(v);
}

/** Python's `str()` of a grain value, for matching lookup keys (True, 3.0, None...). */
export function pyStr(v: unknown): string {
  if (v === true) return 'True';
  if (v === false) return 'False';
  if (v === null || v === undefined) return 'None';
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return String(v);
  return JSON.stringify(v) ?? String(v);
}

/** Python `==` for the plain data jobs carry: deep, key-order blind. */
export function pyEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => pyEqual(x, b[i]));
  if (isMapping(a) && isMapping(b)) {
    const ka = Object.keys(a);
    return ka.length === Object.keys(b).length && ka.every((k) => k in b && pyEqual(a[k], b[k]));
  }
  return false;
}

/** Salt's `salt.utils.dictupdate.update(dest, upd)`: nested mappings merge, anything else replaces. */
export function dictUpdate(dest: Mapping, upd: Mapping): Mapping {
  for (const [k, v] of Object.entries(upd)) {
    const cur = dest[k];
    dest[k] = isMapping(cur) && isMapping(v) ? dictUpdate(cur, v) : v;
  }
  return dest;
}

/**
 * Salt's `salt.utils.data.filter_by`: the first lookup key (a glob) matching the grain's value
 * (each value in turn when it is a list) picks the entry; else the `default` entry; `base` is
 * merged under the result and `merge` over it.
 *
 * @example
 * filterBy({ Debian: { pkg: 'apache2' }, RedHat: { pkg: 'httpd' } }, 'Debian') // { pkg: 'apache2' }
 */
export function filterBy(lookup: Mapping, grainValue: unknown, options: { merge?: unknown; default?: string; base?: unknown } = {}): unknown {
  let ret: unknown = null;
  const values = Array.isArray(grainValue) ? grainValue : [grainValue];
  outer: for (const each of values) {
    for (const key of Object.keys(lookup)) {
      if (fnmatch(key, pyStr(each))) {
        ret = lookup[key];
        break outer;
      }
    }
  }
  const def = options.default ?? 'default';
  if (ret === null || ret === undefined) ret = Object.prototype.hasOwnProperty.call(lookup, def) ? lookup[def] : null;
  const base = options.base;
  if (typeof base === 'string' && base !== '' && Object.prototype.hasOwnProperty.call(lookup, base)) {
    const baseValues = lookup[base];
    if (ret === null || ret === undefined) ret = baseValues;
    else if (isMapping(baseValues)) {
      if (!isMapping(ret)) throw new InvocationError('filter_by default and look-up values must both be dictionaries.');
      ret = dictUpdate(structuredClone(baseValues), ret);
    }
  }
  const merge = options.merge;
  if (merge !== null && merge !== undefined && merge !== '') {
    if (!isMapping(merge)) throw new InvocationError('filter_by merge argument must be a dictionary.');
    if (ret === null || ret === undefined) ret = merge;
    else if (isMapping(ret)) dictUpdate(ret, structuredClone(merge));
    else throw new InvocationError('filter_by merge argument must be a dictionary.');
  }
  return ret ?? null;
}
