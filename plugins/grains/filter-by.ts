import { InvocationError, dictUpdate, fnmatch, isDict, pyStr } from 'brine/plugin';

type Mapping = Record<string, unknown>;

/**
 * Salt's `salt.utils.data.filter_by`: the first lookup key (a glob) matching the grain's value
 * (each value in turn when it is a list) picks the entry; else the `default` entry; `base` is
 * merged under the result and `merge` over it.
 *
 * @example
 * filterBy({ Debian: { pkg: 'apache2' }, RedHat: { pkg: 'httpd' } }, 'Debian') // { pkg: 'apache2' }
 */
export function filterBy(
  lookup: Mapping,
  grainValue: unknown,
  options: { merge?: unknown; default?: string; base?: unknown } = {},
): unknown {
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
    else if (isDict(baseValues)) {
      if (!isDict(ret)) throw new InvocationError('filter_by default and look-up values must both be dictionaries.');
      ret = dictUpdate(structuredClone(baseValues), ret);
    }
  }
  const merge = options.merge;
  if (merge !== null && merge !== undefined && merge !== '') {
    if (!isDict(merge)) throw new InvocationError('filter_by merge argument must be a dictionary.');
    if (ret === null || ret === undefined) ret = merge;
    else if (isDict(ret)) dictUpdate(ret, structuredClone(merge));
    else throw new InvocationError('filter_by merge argument must be a dictionary.');
  }
  return ret ?? null;
}
