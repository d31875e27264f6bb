import { fnmatch } from '../pycompat/fnmatch';
import { pythonReMatch } from '../pycompat/regex';
import { isMapping, pyStr } from '../pycompat/repr';
import { traverse } from '../pycompat/traverse';

/**
 * How a value is compared: glob (false), Python regex (true), or equality of the lowered strings
 * ('exact', Salt's exact_match: the pillar_exact matcher).
 */
export type ValueMatch = boolean | 'exact';

/**
 * Salt's `salt.utils.data.subdict_match`, the walk behind grain and pillar targets.
 *
 * `expr` is `key<delim>subkey<delim>...<delim>pattern`. Every split point is tried, deepest key
 * first, so keys and values containing the delimiter still match. The value is compared with
 * `str(value).lower()` against the lowered pattern (glob, or Python regex with `re.match`); a list
 * value matches when any element does; a dict value matches when the pattern names one of its keys;
 * `*` as the first path element stands for any key. Quirks kept on purpose, because a Salt minion
 * behaves this way and the master must predict it: the nested walk inside a dict value always uses
 * `:`, and a regex pattern is lowered too (so `\D` means `\d`).
 */
export function subdictMatch(data: unknown, expr: string, delimiter = ':', regex: ValueMatch = false): boolean {
  const splits = expr.split(delimiter);
  if (splits.length === 1) return false;
  for (let idx = splits.length - 1; idx > 0; idx--) {
    const key = splits.slice(0, idx).join(delimiter);
    let matchstr: string;
    let found: unknown;
    if (key === '*') {
      matchstr = expr;
      found = data;
    } else {
      matchstr = splits.slice(idx).join(delimiter);
      found = traverse(data, key, MISSING, delimiter);
    }
    // Salt compares with `== {}`: a missing key and an empty dict are both skipped.
    if (found === MISSING || (isMapping(found) && dictKeys(found).length === 0)) continue;
    if (isMapping(found)) {
      if (dictMatch(found, matchstr, regex)) return true;
      continue;
    }
    if (Array.isArray(found)) {
      for (const member of found) {
        if (isMapping(member) && dictMatch(member, matchstr, regex)) return true;
        if (valueMatch(member, matchstr, regex)) return true;
      }
      continue;
    }
    if (valueMatch(found, matchstr, regex)) return true;
  }
  return false;
}

const MISSING = Symbol('missing');

type Dict = Record<string, unknown> | Map<unknown, unknown>;

function dictKeys(d: Dict): string[] {
  return d instanceof Map ? [...d.keys()].map((k) => pyStr(k)) : Object.keys(d);
}

function dictHas(d: Dict, key: string): boolean {
  if (d instanceof Map) return d.has(key);
  return Object.prototype.hasOwnProperty.call(d, key);
}

function dictValues(d: Dict): unknown[] {
  return d instanceof Map ? [...d.values()] : Object.values(d);
}

/** `_dict_match` inside subdict_match. */
function dictMatch(target: Dict, pattern: string, regex: ValueMatch): boolean {
  const wildcard = pattern.startsWith('*:');
  if (wildcard) pattern = pattern.slice(2);
  if (pattern === '*') return true;
  if (dictHas(target, pattern)) return true;
  // Salt recurses with the default delimiter here, whatever the caller's delimiter was.
  if (subdictMatch(target, pattern, ':', regex)) return true;
  if (!wildcard) return false;
  for (const value of dictValues(target)) {
    if (isMapping(value)) {
      if (dictMatch(value, pattern, regex)) return true;
    } else if (Array.isArray(value)) {
      if (value.some((item) => valueMatch(item, pattern, regex))) return true;
    } else if (valueMatch(value, pattern, regex)) {
      return true;
    }
  }
  return false;
}

/** `_match`: both sides as lowered Python strings; glob, exact, or regex where a bad regex is no match. */
function valueMatch(value: unknown, pattern: string, regex: ValueMatch): boolean {
  const target = pyStr(value).toLowerCase();
  const pat = pattern.toLowerCase();
  if (regex === 'exact') return target === pat;
  if (!regex) return fnmatch(pat, target);
  try {
    return pythonReMatch(pat, target);
  } catch {
    return false;
  }
}
