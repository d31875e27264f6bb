/**
 * Salt's Jinja filters and tests (salt/utils/jinja.py, salt/utils/*.py `@jinja_filter`), and the
 * Jinja built-ins whose nunjucks versions differ from Jinja's (default, join, string, list,
 * length, map, select/reject, unique, tojson). Values print as Python prints them.
 */
import { createHash } from 'node:crypto';
import { formatYaml, isMapping, pyRepr, pyTuple } from '../../pycompat';
import { pyJsonDumps } from '../../pycompat';
import {
  TemplateRuntimeError,
  iterate,
  lookup,
  percentFormat,
  withKeywords,
  pyCompare,
  pyEquals,
  pySortCompare,
  pyText,
  splitKeywords,
  truthy,
} from './python-values';
import { isUndefined } from './undefined';
import { attrOf, jinjaFilters } from './filters-jinja';
import { networkFilters } from './filters-network';
import { saltExtraFilters } from './filters-salt';
import { PyFloat, isPyFloat } from '../../pycompat';
import { loadSaltYaml } from '../yaml-loader';

type Fn = (...args: unknown[]) => unknown;

/** markupsafe.escape */
function markupEscape(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/'/g, '&#39;').replace(/"/g, '&#34;');
}

/** Salt's `is_true`-like `to_bool`. */
function toBool(v: unknown): boolean {
  if (v === null || v === undefined) return false;
  if (typeof v === 'boolean') return v;
  if (typeof v === 'number') return v > 0;
  if (typeof v === 'string') return ['yes', '1', 'true', 'on', 'y'].includes(v.toLowerCase());
  if (Array.isArray(v) || isMapping(v)) return truthy(v);
  return Boolean(v);
}

function pyRegex(pattern: string, flags: string): RegExp {
  // Python's (?P<name>...) and (?P=name) are JS's (?<name>...) and \k<name>.
  const source = pattern.replace(/\(\?P</g, '(?<').replace(/\(\?P=(\w+)\)/g, '\\k<$1>');
  return new RegExp(source, flags);
}

function reFlags(ignorecase: unknown, multiline: unknown): string {
  return (truthy(ignorecase ?? false) ? 'i' : '') + (truthy(multiline ?? false) ? 'm' : '');
}

function groups(m: RegExpMatchArray | null): unknown {
  if (!m) return null;
  return m.slice(1).map((g) => (g === undefined ? null : g));
}

/** yaml.safe_dump(value, default_flow_style=...).strip() without a trailing document end. */
function yamlDump(value: unknown, flow = true): string {
  let text = (flow ? formatYaml(value, -1) : formatYaml(value)).trim();
  if (text.endsWith('\n...')) text = text.slice(0, -4);
  return text;
}

function yamlDquote(s: unknown): string {
  return pyJsonDumps(String(s), { ensureAscii: false });
}

function yamlEncode(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  return yamlDump(v, true);
}

function hash(algo: string): Fn {
  return (v) => createHash(algo).update(pyText(v)).digest('hex');
}

function uniqueList(values: unknown[]): unknown[] {
  const out: unknown[] = [];
  for (const v of values) if (!out.some((x) => pyEquals(x, v))) out.push(v);
  return out;
}

/** The filters of brine's Jinja environment, by name. `this` is the nunjucks context. */
export function saltFilters(
  runTest: (name: string, value: unknown, args: unknown[]) => boolean,
  runFilter: (name: string, value: unknown, args: unknown[]) => unknown,
): Record<string, Fn> {
  const selectLike = (keep: boolean, attr: boolean) =>
    function (value: unknown, ...raw: unknown[]) {
      const { args } = splitKeywords(raw);
      const items = iterate(value);
      if (attr) {
        const [attribute, test, ...rest] = args as [string, string | undefined, ...unknown[]];
        return items.filter(
          (x) => (test === undefined ? truthy(attrOf(x, attribute)) : runTest(test, attrOf(x, attribute), rest)) === keep,
        );
      }
      const [test, ...rest] = args as [string | undefined, ...unknown[]];
      return items.filter((x) => (test === undefined ? truthy(x) : runTest(test, x, rest)) === keep);
    };
  const filters: Record<string, Fn> = {
    ...jinjaFilters(),
    ...networkFilters(),
    ...saltExtraFilters(),
    default(value: unknown, dflt: unknown = '', boolean: unknown = false) {
      if (isUndefined(value) || (truthy(boolean) && !truthy(value))) return dflt;
      return value;
    },
    join: withKeywords(['d', 'attribute'], (value: unknown, sep: unknown = '', attribute?: unknown) => {
      const items = iterate(value);
      return (attribute === undefined || attribute === null ? items : items.map((x) => attrOf(x, attribute)))
        .map((x) => pyText(x))
        .join(pyText(sep));
    }),
    string: (v: unknown) => pyText(v),
    list: (v: unknown) => [...iterate(v)],
    length: (v: unknown) => iterate(v).length,
    count: (v: unknown) => iterate(v).length,
    first: (v: unknown) => iterate(v)[0] ?? null,
    last: (v: unknown) => {
      const items = iterate(v);
      return items[items.length - 1] ?? null;
    },
    unique: (v: unknown) => uniqueList(iterate(v)),
    map(value: unknown, ...raw: unknown[]) {
      const { args, kwargs } = splitKeywords(raw);
      const items = iterate(value);
      if (kwargs.attribute !== undefined) {
        return items.map((x) => {
          const v = attrOf(x, String(kwargs.attribute));
          return isUndefined(v) && 'default' in kwargs ? kwargs.default : v;
        });
      }
      const [name, ...rest] = args as [string, ...unknown[]];
      return items.map((x) => runFilter(name, x, rest));
    },
    select: selectLike(true, false),
    reject: selectLike(false, false),
    selectattr: selectLike(true, true),
    rejectattr: selectLike(false, true),
    sort(value: unknown, ...raw: unknown[]) {
      const { args, kwargs } = splitKeywords(raw);
      const reverse = truthy(kwargs.reverse ?? args[0] ?? false);
      const caseSensitive = truthy(kwargs.case_sensitive ?? args[1] ?? false);
      const attribute = (kwargs.attribute ?? args[2]) as string | undefined;
      const key = (x: unknown) => {
        const v = attribute === undefined ? x : attrOf(x, attribute);
        return !caseSensitive && typeof v === 'string' ? v.toLowerCase() : v;
      };
      const out = [...iterate(value)].sort((a, b) => pySortCompare(key(a), key(b)));
      return reverse ? out.reverse() : out;
    },
    lower: (v: unknown) => pyText(v).toLowerCase(),
    upper: (v: unknown) => pyText(v).toUpperCase(),
    replace: withKeywords(['old', 'new', 'count'], (v: unknown, a: unknown, b: unknown, count?: unknown) =>
      lookup(pyText(v), 'replace', true) instanceof Function
        ? (lookup(pyText(v), 'replace', true) as Fn)(pyText(a), pyText(b), ...(count === undefined || count === null ? [] : [count]))
        : v,
    ),
    tojson(v: unknown, indent?: unknown) {
      return pyJsonDumps(v, { indent: indent === undefined || indent === null ? null : Number(indent), ensureAscii: true })
        .replace(/</g, '\\u003c')
        .replace(/>/g, '\\u003e')
        .replace(/&/g, '\\u0026')
        .replace(/'/g, '\\u0027');
    },
    json: (v: unknown, sortKeys: unknown = true, indent?: unknown) =>
      pyJsonDumps(v, {
        sortKeys: truthy(sortKeys),
        indent: indent === undefined || indent === null ? null : Number(indent),
        ensureAscii: true,
      }).trim(),
    yaml: (v: unknown, flow: unknown = true) => yamlDump(v, truthy(flow)),
    yaml_encode: (v: unknown) => yamlEncode(v),
    yaml_dquote: (v: unknown) => yamlDquote(v),
    yaml_squote: (v: unknown) => `'${String(v).replace(/'/g, "''")}'`,
    python: (v: unknown) => pyRepr(v),
    load_yaml: (v: unknown) => loadSaltYaml(pyText(v)),
    load_json(v: unknown) {
      try {
        return JSON.parse(pyText(v));
      } catch {
        throw new TemplateRuntimeError(`Unable to load json from ${pyText(v)}`);
      }
    },
    load_text: (v: unknown) => pyText(v),
    to_bool: (v: unknown) => toBool(v),
    quote: (v: unknown) => `'${pyText(v).replace(/'/g, `'"'"'`)}'`,
    regex_search(v: unknown, pattern: unknown, ignorecase?: unknown, multiline?: unknown) {
      return groups(pyText(v).match(pyRegex(String(pattern), reFlags(ignorecase, multiline))));
    },
    regex_match(v: unknown, pattern: unknown, ignorecase?: unknown, multiline?: unknown) {
      const re = pyRegex(String(pattern), reFlags(ignorecase, multiline) + 'y');
      return groups(pyText(v).match(re));
    },
    regex_replace(v: unknown, pattern: unknown, repl: unknown, ignorecase?: unknown, multiline?: unknown) {
      const replacement = pyText(repl)
        .replace(/\\(\d)/g, '$$$1')
        .replace(/\\g<(\w+)>/g, (_m, g: string) => (/^\d+$/.test(g) ? `$${g}` : `$<${g}>`));
      return pyText(v).replace(pyRegex(String(pattern), reFlags(ignorecase, multiline) + 'g'), replacement);
    },
    md5: hash('md5'),
    sha1: hash('sha1'),
    sha256: hash('sha256'),
    sha512: hash('sha512'),
    base64_encode: (v: unknown) => Buffer.from(pyText(v)).toString('base64'),
    base64_decode: (v: unknown) => Buffer.from(pyText(v), 'base64').toString('utf8'),
    is_list: (v: unknown) => Array.isArray(v),
    is_iter: (v: unknown) => Array.isArray(v) || isMapping(v),
    sequence: (v: unknown) => (Array.isArray(v) ? v : [v]),
    flatten(v: unknown, levels?: unknown) {
      const flat = (xs: unknown[], depth: number): unknown[] =>
        xs.flatMap((x) =>
          Array.isArray(x) && (levels === undefined || levels === null || depth < Number(levels)) ? flat(x, depth + 1) : [x],
        );
      return flat(iterate(v), 0);
    },
    union: (a: unknown, b: unknown) => uniqueList([...iterate(a), ...iterate(b)]),
    intersect: (a: unknown, b: unknown) => uniqueList(iterate(a).filter((x) => iterate(b).some((y) => pyEquals(x, y)))),
    difference: (a: unknown, b: unknown) => uniqueList(iterate(a).filter((x) => !iterate(b).some((y) => pyEquals(x, y)))),
    symmetric_difference: (a: unknown, b: unknown) =>
      uniqueList([
        ...iterate(a).filter((x) => !iterate(b).some((y) => pyEquals(x, y))),
        ...iterate(b).filter((y) => !iterate(a).some((x) => pyEquals(x, y))),
      ]),
    // Salt's lst_min/lst_max: Python's min()/max().
    min: (v: unknown) => {
      const items = [...iterate(v)];
      if (items.length === 0) throw new TemplateRuntimeError('min() arg is an empty sequence');
      return items.sort(pySortCompare)[0];
    },
    max: (v: unknown) => {
      const items = [...iterate(v)];
      if (items.length === 0) throw new TemplateRuntimeError('max() arg is an empty sequence');
      return items.sort(pySortCompare).pop();
    },
    escape: (v: unknown) => markupEscape(pyText(v)),
    e: (v: unknown) => markupEscape(pyText(v)),
    urlencode(v: unknown) {
      // Jinja's do_urlencode: a mapping or pairs as a query string (spaces as +), a str quoted with `/` kept.
      const quote = (s: string, qs: boolean) => {
        const out = encodeURIComponent(s)
          .replace(/[!'()*]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase())
          .replace(/%2F/g, '/');
        return qs ? out.replace(/%20/g, '+').replace(/\//g, '%2F') : out;
      };
      if (typeof v === 'string') return quote(v, false);
      const pairs = isMapping(v) ? Object.entries(v) : (iterate(v) as [unknown, unknown][]);
      return pairs.map(([k, x]) => `${quote(pyText(k), true)}=${quote(pyText(x), true)}`).join('&');
    },
    avg: (v: unknown) => {
      const xs = iterate(v).map(Number);
      return xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length;
    },
    path_join: (...parts: unknown[]) =>
      parts.map((p) => pyText(p)).reduce((a, b) => (b.startsWith('/') ? b : a === '' || a.endsWith('/') ? a + b : `${a}/${b}`), ''),
    to_num(v: unknown) {
      const s = pyText(v).trim();
      if (/^[-+]?\d+$/.test(s)) return Number.parseInt(s, 10);
      const n = Number(s);
      return s === '' || Number.isNaN(n) ? v : n;
    },
    str_to_num: (v: unknown) => filters.to_num(v),
    exactly_n_true: (v: unknown, n: unknown = 1) => iterate(v).filter((x) => truthy(x)).length === Number(n),
    exactly_one_true: (v: unknown) => iterate(v).filter((x) => truthy(x)).length === 1,
    is_hex: (v: unknown) => /^(0x)?[0-9a-fA-F]+$/.test(pyText(v)),
    contains_whitespace: (v: unknown) => /\s/.test(pyText(v)),
    substring_in_list: (s: unknown, list: unknown) => iterate(list).some((x) => pyText(x).includes(pyText(s))),
    to_snake_case: (v: unknown) =>
      pyText(v)
        .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
        .toLowerCase(),
    to_camelcase: (v: unknown) => pyText(v).replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase()),
  };
  // Jinja's short alias.
  filters.d = filters.default;
  filters.format = (fmt: unknown, ...raw: unknown[]) => {
    const { args, kwargs } = splitKeywords(raw);
    const text = pyText(fmt);
    // Jinja: `fmt % kwargs` with keywords, else `fmt % args` (a tuple).
    return percentFormat(text, Object.keys(kwargs).length > 0 ? kwargs : pyTuple(args));
  };
  return filters;
}

/** Jinja's tests that nunjucks lacks or treats differently, plus Salt's (`match`, `equalto`, `list`). */
export function saltTests(): Record<string, Fn> {
  return {
    defined: (v: unknown) => !isUndefined(v),
    undefined: (v: unknown) => isUndefined(v),
    none: (v: unknown) => v === null || v === undefined,
    string: (v: unknown) => typeof v === 'string',
    number: (v: unknown) => typeof v === 'number' || v instanceof PyFloat,
    integer: (v: unknown) => typeof v === 'number' && Number.isInteger(v),
    float: (v: unknown) => isPyFloat(v),
    boolean: (v: unknown) => typeof v === 'boolean',
    true: (v: unknown) => v === true,
    false: (v: unknown) => v === false,
    mapping: (v: unknown) => isMapping(v),
    sequence: (v: unknown) => typeof v === 'string' || Array.isArray(v) || isMapping(v),
    iterable: (v: unknown) => typeof v === 'string' || Array.isArray(v) || isMapping(v),
    list: (v: unknown) => Array.isArray(v),
    equalto: (v: unknown, other: unknown) => pyEquals(v, other),
    eq: (v: unknown, other: unknown) => pyEquals(v, other),
    ne: (v: unknown, other: unknown) => !pyEquals(v, other),
    in: (v: unknown, seq: unknown) => (typeof seq === 'string' ? seq.includes(pyText(v)) : iterate(seq).some((x) => pyEquals(x, v))),
    match: (v: unknown, pattern: unknown, ignorecase?: unknown, multiline?: unknown) =>
      pyRegex(String(pattern), reFlags(ignorecase, multiline) + 'y').test(pyText(v)),
    odd: (v: unknown) => Number(v) % 2 === 1,
    even: (v: unknown) => Number(v) % 2 === 0,
    divisibleby: (v: unknown, n: unknown) => Number(v) % Number(n) === 0,
    lower: (v: unknown) => typeof v === 'string' && v === v.toLowerCase(),
    upper: (v: unknown) => typeof v === 'string' && v === v.toUpperCase(),
    callable: (v: unknown) => typeof v === 'function',
    sameas: (v: unknown, other: unknown) =>
      Object.is(v, other) || ((v === null || v === undefined) && (other === null || other === undefined)),
    escaped: (v: unknown) => typeof (v as { __html__?: unknown })?.__html__ === 'function',
    gt: (v: unknown, other: unknown) => pyCompare(v, '>', other),
    ge: (v: unknown, other: unknown) => pyCompare(v, '>=', other),
    lt: (v: unknown, other: unknown) => pyCompare(v, '<', other),
    le: (v: unknown, other: unknown) => pyCompare(v, '<=', other),
    greaterthan: (v: unknown, other: unknown) => pyCompare(v, '>', other),
    lessthan: (v: unknown, other: unknown) => pyCompare(v, '<', other),
    '==': (v: unknown, other: unknown) => pyEquals(v, other),
    '!=': (v: unknown, other: unknown) => !pyEquals(v, other),
    '>': (v: unknown, other: unknown) => pyCompare(v, '>', other),
    '>=': (v: unknown, other: unknown) => pyCompare(v, '>=', other),
    '<': (v: unknown, other: unknown) => pyCompare(v, '<', other),
    '<=': (v: unknown, other: unknown) => pyCompare(v, '<=', other),
  };
}
