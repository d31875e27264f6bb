import { fnmatch } from './glob';
import { pythonReMatch } from './python-regex';

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
export function subdictMatch(data: unknown, expr: string, delimiter = ':', regex = false): boolean {
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
      found = traverse(data, key, delimiter);
    }
    // Salt compares with `== {}`: a missing key and an empty dict are both skipped.
    if (found === MISSING || (isDict(found) && dictKeys(found).length === 0)) continue;
    if (isDict(found)) {
      if (dictMatch(found, matchstr, regex)) return true;
      continue;
    }
    if (Array.isArray(found)) {
      for (const member of found) {
        if (isDict(member) && dictMatch(member, matchstr, regex)) return true;
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

export function isDict(value: unknown): value is Dict {
  if (value instanceof Map) return true;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function dictKeys(d: Dict): string[] {
  return d instanceof Map ? [...d.keys()].map((k) => pyStr(k)) : Object.keys(d);
}

function dictHas(d: Dict, key: string): boolean {
  if (d instanceof Map) return d.has(key);
  return Object.prototype.hasOwnProperty.call(d, key);
}

function dictGet(d: Dict, key: string): unknown {
  return d instanceof Map ? d.get(key) : (d as Record<string, unknown>)[key];
}

function dictValues(d: Dict): unknown[] {
  return d instanceof Map ? [...d.values()] : Object.values(d);
}

/** `traverse_dict_and_list`: walk dicts by key and lists by index (or into their embedded dicts). */
function traverse(data: unknown, key: string, delimiter: string): unknown {
  let ptr = data;
  for (const each of key.split(delimiter)) {
    if (Array.isArray(ptr)) {
      const idx = pyInt(each);
      if (idx === undefined) {
        const holder = ptr.find((x) => isDict(x) && dictHas(x, each)) as Dict | undefined;
        if (holder === undefined) return MISSING;
        ptr = dictGet(holder, each);
      } else {
        // Python lists accept negative indices from the end.
        const real = idx < 0 ? ptr.length + idx : idx;
        if (real < 0 || real >= ptr.length) return MISSING;
        ptr = ptr[real];
      }
    } else if (isDict(ptr)) {
      if (!dictHas(ptr, each)) return MISSING;
      ptr = dictGet(ptr, each);
    } else {
      return MISSING;
    }
  }
  return ptr;
}

/** Python's `int(str)`: optional sign and surrounding whitespace, underscores between digits. */
function pyInt(s: string): number | undefined {
  const m = /^\s*([+-]?)(\d+(?:_\d+)*)\s*$/.exec(s);
  if (m === null) return undefined;
  const n = Number(m[2].replace(/_/g, ''));
  return m[1] === '-' ? -n : n;
}

/** `_dict_match` inside subdict_match. */
function dictMatch(target: Dict, pattern: string, regex: boolean): boolean {
  const wildcard = pattern.startsWith('*:');
  if (wildcard) pattern = pattern.slice(2);
  if (pattern === '*') return true;
  if (dictHas(target, pattern)) return true;
  // Salt recurses with the default delimiter here, whatever the caller's delimiter was.
  if (subdictMatch(target, pattern, ':', regex)) return true;
  if (!wildcard) return false;
  for (const value of dictValues(target)) {
    if (isDict(value)) {
      if (dictMatch(value, pattern, regex)) return true;
    } else if (Array.isArray(value)) {
      if (value.some((item) => valueMatch(item, pattern, regex))) return true;
    } else if (valueMatch(value, pattern, regex)) {
      return true;
    }
  }
  return false;
}

/** `_match`: both sides as lowered Python strings; glob, or regex where a bad regex is no match. */
function valueMatch(value: unknown, pattern: string, regex: boolean): boolean {
  const target = pyStr(value).toLowerCase();
  const pat = pattern.toLowerCase();
  if (!regex) return fnmatch(pat, target);
  try {
    return pythonReMatch(pat, target);
  } catch {
    return false;
  }
}

/** Python's `str(value)` for the data types grains and pillar hold. */
export function pyStr(value: unknown): string {
  if (typeof value === 'string') return value;
  return pyRepr(value);
}

function pyRepr(value: unknown): string {
  if (typeof value === 'string') return pyQuote(value);
  if (value === null || value === undefined) return 'None';
  if (value === true) return 'True';
  if (value === false) return 'False';
  if (typeof value === 'number') {
    if (Number.isNaN(value)) return 'nan';
    if (!Number.isFinite(value)) return value > 0 ? 'inf' : '-inf';
    return String(value);
  }
  if (typeof value === 'bigint') return value.toString();
  if (Buffer.isBuffer(value)) return `b${pyQuote(value.toString('latin1'))}`;
  if (Array.isArray(value)) return `[${value.map(pyRepr).join(', ')}]`;
  if (value instanceof Map) {
    return `{${[...value.entries()].map(([k, v]) => `${pyRepr(k)}: ${pyRepr(v)}`).join(', ')}}`;
  }
  if (typeof value === 'object') {
    return `{${Object.entries(value).map(([k, v]) => `${pyQuote(k)}: ${pyRepr(v)}`).join(', ')}}`;
  }
  return String(value);
}

function pyQuote(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  const body = s
    .replace(/\\/g, '\\\\')
    .replace(/\n/g, '\\n')
    .replace(/\r/g, '\\r')
    .replace(/\t/g, '\\t')
    .split(quote)
    .join('\\' + quote);
  return quote + body + quote;
}
