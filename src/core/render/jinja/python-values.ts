/**
 * Python semantics for values inside Jinja templates: attribute and item lookup (dict methods
 * before keys for `d.items`, keys before methods for `d['items']`), the methods templates call
 * on dicts, lists and strings, truthiness, equality, `+`, `~`, `%` and how a value prints.
 */
import { PyFloat, isMapping, isTuple, pyEqual, pyRepr, pyStr, pyTruthy, pyTuple } from '../../pycompat';
import { missingMember, strict, Undefined, UndefinedError } from './undefined';
import { numberOf, pyArith } from './python-numbers';
import { TemplateRuntimeError } from './template-error';

type Dict = Record<string, unknown>;

export { TemplateRuntimeError };

/** nunjucks passes keyword arguments as a last object marked `__keywords`. */
export function splitKeywords(args: unknown[]): { args: unknown[]; kwargs: Dict } {
  const last = args[args.length - 1] as Dict | undefined;
  if (last && typeof last === 'object' && (last as { __keywords?: boolean }).__keywords === true) {
    const kwargs: Dict = {};
    for (const [k, v] of Object.entries(last)) if (k !== '__keywords') kwargs[k] = v;
    return { args: args.slice(0, -1), kwargs };
  }
  return { args, kwargs: {} };
}

/**
 * A function called as Python calls one: keyword arguments (nunjucks' last `__keywords` object)
 * go to the parameters of those names, after the value a filter is applied to.
 *
 * @example
 * withKeywords(['sep', 'maxsplit'], (s, sep, max) => ...)
 */
export function withKeywords<F extends (...args: never[]) => unknown>(names: string[], fn: F): (...raw: unknown[]) => unknown {
  return (...raw: unknown[]) => {
    const { args, kwargs } = splitKeywords(raw);
    const keys = Object.keys(kwargs);
    if (keys.length === 0) return (fn as unknown as (...a: unknown[]) => unknown)(...args);
    const out = [...args];
    for (const k of keys) {
      const at = names.indexOf(k);
      if (at < 0) throw new TemplateRuntimeError(`got an unexpected keyword argument '${k}'`);
      // names start after the filtered value, which is args[0].
      while (out.length < at + 1) out.push(undefined);
      out[at + 1] = kwargs[k];
    }
    return (fn as unknown as (...a: unknown[]) => unknown)(...out);
  };
}

/** Python's bool(). Undefined is an error, as StrictUndefined's `__bool__` is. */
export function truthy(value: unknown, line?: number): boolean {
  strict(value, line);
  if (value instanceof String) return value.length > 0;
  return pyTruthy(value);
}

/** Python's `==`: by value for lists and dicts, 1 == 1.0 == True. */
export const pyEquals = pyEqual;

function typeName(v: unknown): string {
  if (v === null || v === undefined) return 'NoneType';
  if (typeof v === 'string') return 'str';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int' : 'float';
  if (v instanceof PyFloat) return 'float';
  if (Array.isArray(v)) return isTuple(v) ? 'tuple' : 'list';
  if (isMapping(v)) return 'dict';
  return typeof v;
}

/** Python's comparison operators. */
export function pyCompare(a: unknown, op: string, b: unknown, line?: number): boolean {
  strict(a, line);
  strict(b, line);
  switch (op) {
    case '==':
      return pyEquals(a, b);
    case '!=':
      return !pyEquals(a, b);
    default: {
      const na = numberOf(a);
      const nb = numberOf(b);
      const ok = (na !== undefined && nb !== undefined) || (typeof a === 'string' && typeof b === 'string');
      if (!ok && !(Array.isArray(a) && Array.isArray(b))) {
        throw new TemplateRuntimeError(`'${op}' not supported between instances of '${typeName(a)}' and '${typeName(b)}'`, line);
      }
      if (Array.isArray(a) && Array.isArray(b)) {
        const c = pySortCompare(a, b);
        return op === '<' ? c < 0 : op === '>' ? c > 0 : op === '<=' ? c <= 0 : c >= 0;
      }
      const x = (na ?? a) as number;
      const y = (nb ?? b) as number;
      if (op === '<') return x < y;
      if (op === '>') return x > y;
      if (op === '<=') return x <= y;
      if (op === '>=') return x >= y;
      throw new TemplateRuntimeError(`unknown comparison ${op}`, line);
    }
  }
}

/** Python's `+`. */
export function pyAdd(a: unknown, b: unknown, line?: number): unknown {
  strict(a, line);
  strict(b, line);
  if (numberOf(a) !== undefined && numberOf(b) !== undefined) return pyArith('+', a, b, line);
  if (typeof a === 'string' && typeof b === 'string') return a + b;
  if (Array.isArray(a) && Array.isArray(b)) return isTuple(a) && isTuple(b) ? pyTuple([...a, ...b]) : [...a, ...b];
  if (typeof a === 'string' || typeof b === 'string') {
    throw new TemplateRuntimeError(`can only concatenate ${typeName(a)} (not "${typeName(b)}") to ${typeName(a)}`, line);
  }
  throw new TemplateRuntimeError(`unsupported operand type(s) for +: '${typeName(a)}' and '${typeName(b)}'`, line);
}

/** Python's `in`: a substring of a str, a key of a dict, an element (by `==`) of a list. */
export function pyIn(item: unknown, container: unknown, line?: number): boolean {
  strict(item, line);
  strict(container, line);
  if (container instanceof String) container = container.toString();
  if (typeof container === 'string') {
    if (item instanceof String) item = item.toString();
    if (typeof item !== 'string')
      throw new TemplateRuntimeError(`'in <string>' requires string as left operand, not ${typeName(item)}`, line);
    return container.includes(item);
  }
  if (Array.isArray(container)) return container.some((x) => pyEquals(x, item));
  if (container instanceof Map) return container.has(item);
  if (isMapping(container)) {
    if (item !== null && typeof item === 'object' && !(item instanceof PyFloat))
      throw new TemplateRuntimeError(`unhashable type: '${typeName(item)}'`, line);
    return Object.prototype.hasOwnProperty.call(container, pyDictKey(item));
  }
  throw new TemplateRuntimeError(`argument of type '${typeName(container)}' is not iterable`, line);
}

/** How a scalar key is held in a dict of str keys (`None`, `True`, `1`). */
function pyDictKey(key: unknown): string {
  return key === null || key === undefined || typeof key === 'boolean' || key instanceof PyFloat ? pyText(key) : String(key);
}

/** Python's `*`: numbers multiply, a str or list times an int repeats. */
export function pyMul(a: unknown, b: unknown, line?: number): unknown {
  strict(a, line);
  strict(b, line);
  const isInt = (v: unknown) => (typeof v === 'number' && Number.isInteger(v)) || typeof v === 'boolean';
  if (numberOf(a) !== undefined && numberOf(b) !== undefined) return pyArith('*', a, b, line);
  const [seq, n] = isInt(b) ? [a, Number(b)] : isInt(a) ? [b, Number(a)] : [undefined, 0];
  if (typeof seq === 'string') return seq.repeat(Math.max(0, n));
  if (Array.isArray(seq)) {
    const out = Array.from({ length: Math.max(0, n) }, () => seq).flat();
    return isTuple(seq) ? pyTuple(out) : out;
  }
  throw new TemplateRuntimeError(`unsupported operand type(s) for *: '${typeName(a)}' and '${typeName(b)}'`, line);
}

/** How `{{ value }}` and `~` print a value: Python's str(). */
export function pyText(value: unknown, line?: number): string {
  strict(value, line);
  if (value === undefined) return 'None';
  if (typeof value === 'string') return value;
  // nunjucks' SafeString (what a macro or `caller()` returns) is a String object.
  if (value instanceof String) return value.toString();
  if (typeof value === 'function') return '<function>';
  if (value instanceof Namespace) return '<Namespace>';
  return pyStr(value);
}

/** Jinja's `namespace()`: an object whose attributes `{% set ns.x = ... %}` may change. */
export class Namespace {
  [key: string]: unknown;
}

/** Python's `%` on a str: printf-style formatting (`'%s-%d' % (a, b)`); numbers take the modulo. */
export function pyMod(a: unknown, b: unknown, line?: number): unknown {
  strict(a, line);
  strict(b, line);
  if (numberOf(a) !== undefined && numberOf(b) !== undefined) return pyArith('%', a, b, line);
  if (typeof a !== 'string')
    throw new TemplateRuntimeError(`unsupported operand type(s) for %: '${typeName(a)}' and '${typeName(b)}'`, line);
  return percentFormat(a, b, line);
}

export function percentFormat(fmt: string, b: unknown, line?: number): string {
  // Only a tuple spreads over the conversions; a list is one value, as in Python.
  const values = isTuple(b) ? [...(b as unknown[])] : [b];
  const named = isMapping(b) && !Array.isArray(b) ? (b as Dict) : undefined;
  let i = 0;
  const out = fmt.replace(
    /%(?:\(([^)]*)\))?([-+ #0]*)(\d+|\*)?(?:\.(\d+))?([sdirfeEgGxXoc%])/g,
    (_m, key: string | undefined, flags: string, width: string | undefined, prec: string | undefined, conv: string) => {
      if (conv === '%') return '%';
      const v = key !== undefined && named ? named[key] : values[i++];
      let s: string;
      switch (conv) {
        case 's':
          s = pyText(v, line);
          break;
        case 'r':
          s = pyRepr(v);
          break;
        case 'd':
        case 'i':
          s = String(Math.trunc(Number(v)));
          break;
        case 'f':
          s = Number(v).toFixed(prec === undefined ? 6 : Number(prec));
          break;
        case 'e':
        case 'E':
          s = Number(v)
            .toExponential(prec === undefined ? 6 : Number(prec))
            .replace(/e([+-])(\d)$/, 'e$10$2');
          if (conv === 'E') s = s.toUpperCase();
          break;
        case 'x':
          s = Math.trunc(Number(v)).toString(16);
          break;
        case 'X':
          s = Math.trunc(Number(v)).toString(16).toUpperCase();
          break;
        case 'o':
          s = Math.trunc(Number(v)).toString(8);
          break;
        case 'c':
          s = typeof v === 'number' ? String.fromCodePoint(v) : String(v);
          break;
        default:
          s = pyText(v, line);
      }
      if (flags.includes('+') && /[dif]/.test(conv) && Number(v) >= 0) s = '+' + s;
      if (conv === 's' && prec !== undefined) s = s.slice(0, Number(prec));
      const w = width === undefined || width === '*' ? 0 : Number(width);
      if (s.length < w) {
        if (flags.includes('-')) s = s.padEnd(w);
        else if (flags.includes('0') && /[difeExXo]/.test(conv))
          s = s.startsWith('-') ? '-' + s.slice(1).padStart(w - 1, '0') : s.padStart(w, '0');
        else s = s.padStart(w);
      }
      return s;
    },
  );
  if (!named && i < values.length) throw new TemplateRuntimeError('not all arguments converted during string formatting', line);
  return out;
}

/** Python's `str.format`: `{}`, `{0}`, `{name}`, `{name.attr}`, `{0[key]}`, `{:>8}` (basic specs). */
export function strFormat(fmt: string, args: unknown[], kwargs: Dict): string {
  let auto = 0;
  return fmt.replace(
    /\{\{|\}\}|\{([^{}!:]*)(?:!([rs]))?(?::([^{}]*))?\}/g,
    (m, field: string | undefined, conv: string | undefined, spec: string | undefined) => {
      if (m === '{{') return '{';
      if (m === '}}') return '}';
      const path = (field ?? '').match(/^([^.[]*)(.*)$/)!;
      let value: unknown = path[1] === '' ? args[auto++] : /^\d+$/.test(path[1]) ? args[Number(path[1])] : kwargs[path[1]];
      for (const part of path[2].matchAll(/\.([^.[]+)|\[([^\]]+)\]/g)) {
        const key = part[1] ?? part[2];
        value = isMapping(value) ? (value as Dict)[key] : Array.isArray(value) ? value[Number(key)] : undefined;
      }
      let s = conv === 'r' ? pyRepr(value) : pyText(value);
      if (spec) s = applyFormatSpec(value, s, spec);
      return s;
    },
  );
}

function applyFormatSpec(value: unknown, s: string, spec: string): string {
  const m = spec.match(/^(?:(.)?([<>^=]))?([-+ ])?(0)?(\d+)?(?:\.(\d+))?([sdfeExXob%])?$/);
  if (!m) return s;
  const [, fill = ' ', align, , zero, width, prec, type] = m;
  if (type === 'f' || (prec !== undefined && typeof value === 'number' && type !== 's')) s = Number(value).toFixed(Number(prec ?? 6));
  else if (type === 'x') s = Number(value).toString(16);
  else if (type === 'd') s = String(Math.trunc(Number(value)));
  else if (type === 's' && prec !== undefined) s = s.slice(0, Number(prec));
  const w = Number(width ?? 0);
  if (s.length >= w) return s;
  const pad = (n: number, c: string) => c.repeat(n);
  const a = align ?? (zero ? '=' : typeof value === 'number' ? '>' : '<');
  const f = zero && !align ? '0' : fill;
  if (a === '<') return s + pad(w - s.length, f);
  if (a === '>' || a === '=') return pad(w - s.length, f) + s;
  const left = Math.floor((w - s.length) / 2);
  return pad(left, f) + s + pad(w - s.length - left, f);
}

function pySplit(s: string, sep: unknown, maxsplit: unknown, fromRight: boolean): string[] {
  const max = maxsplit === undefined || maxsplit === null ? -1 : Number(maxsplit);
  if (sep === undefined || sep === null) {
    const parts = s.trim() === '' ? [] : s.trim().split(/\s+/);
    if (max < 0 || parts.length <= max + 1) return parts;
    if (fromRight) {
      const re = s.trimEnd();
      const words = parts.slice(parts.length - max);
      let rest = re;
      for (let k = words.length - 1; k >= 0; k--) rest = rest.slice(0, rest.lastIndexOf(words[k])).trimEnd();
      return [rest, ...words];
    }
    const out: string[] = [];
    let rest = s.trimStart();
    for (let k = 0; k < max; k++) {
      const m = rest.match(/^(\S+)\s+/);
      if (!m) break;
      out.push(m[1]);
      rest = rest.slice(m[0].length);
    }
    return [...out, rest];
  }
  const sp = String(sep);
  if (sp === '') throw new TemplateRuntimeError('empty separator');
  const all = s.split(sp);
  if (max < 0 || all.length <= max + 1) return all;
  if (fromRight) return [all.slice(0, all.length - max).join(sp), ...all.slice(all.length - max)];
  return [...all.slice(0, max), all.slice(max).join(sp)];
}

function stripChars(s: string, chars: unknown, left: boolean, right: boolean): string {
  if (chars === undefined || chars === null) return left && right ? s.trim() : left ? s.trimStart() : s.trimEnd();
  const set = new Set(String(chars));
  let a = 0;
  let b = s.length;
  if (left) while (a < b && set.has(s[a])) a++;
  if (right) while (b > a && set.has(s[b - 1])) b--;
  return s.slice(a, b);
}

function pyTitle(s: string): string {
  return s.toLowerCase().replace(/(^|[^A-Za-z])([a-z])/g, (_m, p: string, c: string) => p + c.toUpperCase());
}

type Method = (self: never, args: unknown[], kwargs: Dict) => unknown;

const STR_METHODS: Record<string, Method> = {
  split: (s: string, [sep, max], kw) => pySplit(s, sep ?? kw.sep, max ?? kw.maxsplit, false),
  rsplit: (s: string, [sep, max], kw) => pySplit(s, sep ?? kw.sep, max ?? kw.maxsplit, true),
  splitlines: (s: string) => s.split(/\r\n|\n|\r/).filter((_x, i, arr) => i < arr.length - 1 || arr[i] !== ''),
  startswith: (s: string, [p]) => (Array.isArray(p) ? p.some((x) => s.startsWith(String(x))) : s.startsWith(String(p))),
  endswith: (s: string, [p]) => (Array.isArray(p) ? p.some((x) => s.endsWith(String(x))) : s.endsWith(String(p))),
  upper: (s: string) => s.toUpperCase(),
  lower: (s: string) => s.toLowerCase(),
  strip: (s: string, [c]) => stripChars(s, c, true, true),
  lstrip: (s: string, [c]) => stripChars(s, c, true, false),
  rstrip: (s: string, [c]) => stripChars(s, c, false, true),
  replace: (s: string, [a, b, n]) => {
    if (n === undefined || Number(n) < 0) return s.split(String(a)).join(String(b));
    let out = s;
    let from = 0;
    for (let k = 0; k < Number(n); k++) {
      const at = out.indexOf(String(a), from);
      if (at < 0) break;
      out = out.slice(0, at) + String(b) + out.slice(at + String(a).length);
      from = at + String(b).length;
    }
    return out;
  },
  format: (s: string, args, kw) => strFormat(s, args, kw),
  join: (s: string, [items]) =>
    iterate(items)
      .map((x) => pyText(x))
      .join(s),
  find: (s: string, [x]) => s.indexOf(String(x)),
  rfind: (s: string, [x]) => s.lastIndexOf(String(x)),
  index: (s: string, [x]) => {
    const at = s.indexOf(String(x));
    if (at < 0) throw new TemplateRuntimeError('substring not found');
    return at;
  },
  count: (s: string, [x]) => (String(x) === '' ? s.length + 1 : s.split(String(x)).length - 1),
  title: (s: string) => pyTitle(s),
  capitalize: (s: string) => (s === '' ? s : s[0].toUpperCase() + s.slice(1).toLowerCase()),
  isdigit: (s: string) => /^\d+$/.test(s),
  isalpha: (s: string) => /^[A-Za-z]+$/.test(s),
  isalnum: (s: string) => /^[A-Za-z0-9]+$/.test(s),
  isupper: (s: string) => /[A-Z]/.test(s) && s === s.toUpperCase(),
  islower: (s: string) => /[a-z]/.test(s) && s === s.toLowerCase(),
  isspace: (s: string) => /^\s+$/.test(s),
  zfill: (s: string, [w]) =>
    s.startsWith('-') || s.startsWith('+') ? s[0] + s.slice(1).padStart(Number(w) - 1, '0') : s.padStart(Number(w), '0'),
  ljust: (s: string, [w, f]) => s.padEnd(Number(w), f === undefined ? ' ' : String(f)),
  rjust: (s: string, [w, f]) => s.padStart(Number(w), f === undefined ? ' ' : String(f)),
  center: (s: string, [w, f]) => {
    const total = Number(w) - s.length;
    if (total <= 0) return s;
    const fill = f === undefined ? ' ' : String(f);
    const left = Math.floor(total / 2) + (total % 2 && Number(w) % 2 ? 1 : 0);
    return fill.repeat(left) + s + fill.repeat(total - left);
  },
  partition: (s: string, [sep]) => {
    const at = s.indexOf(String(sep));
    return pyTuple(at < 0 ? [s, '', ''] : [s.slice(0, at), String(sep), s.slice(at + String(sep).length)]);
  },
  rpartition: (s: string, [sep]) => {
    const at = s.lastIndexOf(String(sep));
    return pyTuple(at < 0 ? ['', '', s] : [s.slice(0, at), String(sep), s.slice(at + String(sep).length)]);
  },
  encode: (s: string) => s,
  decode: (s: string) => s,
  swapcase: (s: string) => [...s].map((c) => (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase())).join(''),
};

function indexOfPy(list: unknown[], x: unknown): number {
  return list.findIndex((y) => pyEquals(x, y));
}

const LIST_METHODS: Record<string, Method> = {
  append: (l: unknown[], [x]) => {
    l.push(x);
    return null;
  },
  extend: (l: unknown[], [xs]) => {
    l.push(...iterate(xs));
    return null;
  },
  insert: (l: unknown[], [i, x]) => {
    l.splice(Number(i) < 0 ? Math.max(0, l.length + Number(i)) : Number(i), 0, x);
    return null;
  },
  pop: (l: unknown[], [i]) => {
    if (l.length === 0) throw new TemplateRuntimeError('pop from empty list');
    const at = i === undefined ? l.length - 1 : Number(i) < 0 ? l.length + Number(i) : Number(i);
    if (at < 0 || at >= l.length) throw new TemplateRuntimeError('pop index out of range');
    return l.splice(at, 1)[0];
  },
  remove: (l: unknown[], [x]) => {
    const at = indexOfPy(l, x);
    if (at < 0) throw new TemplateRuntimeError('list.remove(x): x not in list');
    l.splice(at, 1);
    return null;
  },
  index: (l: unknown[], [x]) => {
    const at = indexOfPy(l, x);
    if (at < 0) throw new TemplateRuntimeError(`${pyRepr(x)} is not in list`);
    return at;
  },
  count: (l: unknown[], [x]) => l.filter((y) => pyEquals(x, y)).length,
  sort: (l: unknown[], _a, kw) => {
    l.sort(pySortCompare);
    if (kw.reverse) l.reverse();
    return null;
  },
  reverse: (l: unknown[]) => {
    l.reverse();
    return null;
  },
  copy: (l: unknown[]) => [...l],
  clear: (l: unknown[]) => {
    l.length = 0;
    return null;
  },
};

/** Python's sort order for values of one kind (numbers, strings, lists). */
export function pySortCompare(a: unknown, b: unknown): number {
  const na = numberOf(a);
  const nb = numberOf(b);
  if (na !== undefined && nb !== undefined) return na - nb;
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  if (Array.isArray(a) && Array.isArray(b)) {
    for (let i = 0; i < Math.min(a.length, b.length); i++) {
      const c = pySortCompare(a[i], b[i]);
      if (c !== 0) return c;
    }
    return a.length - b.length;
  }
  if (typeof a === 'boolean' || typeof b === 'boolean') return Number(a) - Number(b);
  throw new TemplateRuntimeError(`'<' not supported between instances of '${typeName(a)}' and '${typeName(b)}'`);
}

const has = (d: Dict, k: unknown) => Object.prototype.hasOwnProperty.call(d, String(k));

const DICT_METHODS: Record<string, Method> = {
  get: (d: Dict, [k, dflt]) => (has(d, k) ? d[String(k)] : dflt === undefined ? null : dflt),
  items: (d: Dict) => Object.entries(d).map((pair) => pyTuple(pair)),
  keys: (d: Dict) => Object.keys(d),
  values: (d: Dict) => Object.values(d),
  update: (d: Dict, [other], kw) => {
    if (other !== undefined && other !== null) {
      if (Array.isArray(other)) for (const [k, v] of other as [string, unknown][]) d[k] = v;
      else Object.assign(d, other);
    }
    Object.assign(d, kw);
    return null;
  },
  setdefault: (d: Dict, [k, dflt]) => {
    if (!has(d, k)) d[String(k)] = dflt === undefined ? null : dflt;
    return d[String(k)];
  },
  pop: (d: Dict, args) => {
    const k = String(args[0]);
    if (has(d, k)) {
      const v = d[k];
      delete d[k];
      return v;
    }
    if (args.length > 1) return args[1];
    throw new TemplateRuntimeError(pyRepr(args[0]));
  },
  copy: (d: Dict) => ({ ...d }),
  has_key: (d: Dict, [k]) => has(d, k),
  clear: (d: Dict) => {
    for (const k of Object.keys(d)) delete d[k];
    return null;
  },
};

function bindMethod(self: unknown, method: Method): (...args: unknown[]) => unknown {
  return (...raw: unknown[]) => {
    const { args, kwargs } = splitKeywords(raw);
    return (method as (s: unknown, a: unknown[], k: Dict) => unknown)(self, args, kwargs);
  };
}

function methodsOf(obj: unknown): Record<string, Method> | undefined {
  if (typeof obj === 'string') return STR_METHODS;
  if (Array.isArray(obj)) return LIST_METHODS;
  if (isMapping(obj) && !(obj instanceof Map)) return DICT_METHODS;
  return undefined;
}

/**
 * Jinja's lookup. `obj.name` (attr) tries a Python method first, then the item; `obj[key]`
 * tries the item first, then the method. Missing → Undefined with Jinja's hint.
 */
export function lookup(obj: unknown, key: unknown, attr: boolean, line?: number): unknown {
  strict(obj, line);
  if (obj instanceof String) obj = obj.toString();
  if (obj === null || obj === undefined) return missingMember(null, key);
  const methods = methodsOf(obj);
  const k = key as string;
  if (attr && methods && typeof k === 'string' && Object.prototype.hasOwnProperty.call(methods, k)) return bindMethod(obj, methods[k]);
  if (Array.isArray(obj) || typeof obj === 'string') {
    // groupby's tuples carry .grouper and .list.
    if (attr && Array.isArray(obj) && typeof k === 'string' && k !== 'length' && Object.prototype.hasOwnProperty.call(obj, k))
      return (obj as unknown as Dict)[k];
    if (typeof key === 'number' || (typeof key === 'string' && /^-?\d+$/.test(key) && !attr)) {
      const n = Number(key);
      const at = n < 0 ? obj.length + n : n;
      if (at >= 0 && at < obj.length) return obj[at];
      return missingMember(obj, typeof key === 'number' ? key : n);
    }
  } else if (obj instanceof Map) {
    if (obj.has(key)) return obj.get(key);
  } else if (typeof obj === 'function') {
    // A recursive loop's `loop` is a function carrying index, depth, ...
    if (Object.prototype.hasOwnProperty.call(obj, k)) return (obj as unknown as Dict)[k];
  } else if (typeof obj === 'object') {
    if (Object.prototype.hasOwnProperty.call(obj, k)) return (obj as Dict)[k];
    if (obj instanceof Namespace) return missingMember(obj, key);
    // Objects that are not data (the salt function table, the loop variable) expose their members.
    if (!isMapping(obj)) {
      const v = (obj as Dict)[k];
      if (v !== undefined) return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(obj) : v;
    }
  }
  if (!attr && methods && typeof k === 'string' && Object.prototype.hasOwnProperty.call(methods, k)) return bindMethod(obj, methods[k]);
  return missingMember(obj, key);
}

/** What a `for` loop walks: a dict gives its keys (Python), unless two names unpack its items. */
export function iterate(value: unknown, line?: number, pairs = false): unknown[] {
  strict(value, line);
  if (value === null || value === undefined) throw new TemplateRuntimeError("'NoneType' object is not iterable", line);
  if (Array.isArray(value)) return value;
  if (typeof value === 'string') return [...value];
  if (value instanceof Map) return pairs ? [...value.entries()] : [...value.keys()];
  if (isMapping(value)) return pairs ? Object.entries(value) : Object.keys(value);
  if (typeof value === 'number' || typeof value === 'boolean') {
    throw new TemplateRuntimeError(`'${typeName(value)}' object is not iterable`, line);
  }
  if (typeof (value as Iterable<unknown>)[Symbol.iterator] === 'function') return [...(value as Iterable<unknown>)];
  throw new TemplateRuntimeError(`'${typeName(value)}' object is not iterable`, line);
}

export { Undefined, UndefinedError };
