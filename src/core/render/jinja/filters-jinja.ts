/**
 * Jinja 3.1's built-in filters whose nunjucks versions are missing or answer differently:
 * abs, float, int, round, truncate, sum, title, trim, indent, dictsort, items, groupby,
 * wordwrap, filesizeformat, pprint, xmlattr, attr. Python semantics; expected values in the tests
 * were printed by Jinja2 itself.
 */
import { formatPprint, isMapping, isPyFloat, pyFloatOf, pyFloatText, pyIntText, pyTuple } from '../../pycompat';
import { numberOf, pyUnary } from './python-numbers';
import { TemplateRuntimeError, iterate, lookup, pyAdd, pySortCompare, pyText, splitKeywords, truthy } from './python-values';
import { isUndefined, missingMember } from './undefined';

type Fn = (...args: unknown[]) => unknown;

/** Jinja's make_attrgetter: `a.b.0` through items and attributes. */
export function attrOf(item: unknown, attribute: unknown): unknown {
  if (typeof attribute === 'number') return lookup(item, attribute, false);
  let v = item;
  for (const part of String(attribute).split('.')) v = lookup(v, /^\d+$/.test(part) ? Number(part) : part, false);
  return v;
}

/** Positional and keyword arguments by name, as Python binds them. */
function bind(raw: unknown[], names: string[], defaults: Record<string, unknown>): Record<string, unknown> {
  const { args, kwargs } = splitKeywords(raw);
  const out: Record<string, unknown> = { ...defaults };
  names.forEach((n, i) => {
    if (i < args.length) out[n] = args[i];
  });
  for (const [k, v] of Object.entries(kwargs)) out[k] = v;
  return out;
}

/** Python's round(x, n): exact ties go to the even digit (on the exact binary value). */
export function pyRound(x: number, n: number): number {
  if (!Number.isFinite(x)) return x;
  if (n < 0) {
    const f = 10 ** -n;
    return pyRound(x / f, 0) * f;
  }
  const exact = Math.abs(x).toFixed(Math.min(100, n + 30));
  const dot = exact.indexOf('.');
  const rest = exact.slice(dot + 1 + n);
  if (/^50*$/.test(rest)) {
    // A tie: keep the truncated value when its last digit is even.
    const kept = exact.slice(0, dot + 1 + n).replace(/\.$/, '');
    const last = Number(kept[kept.length - 1]);
    const down = Number(kept);
    const r = last % 2 === 0 ? down : down + 10 ** -n;
    return Math.sign(x) * Number(r.toFixed(n));
  }
  return Number(x.toFixed(n));
}

function toFloat(v: unknown): number | undefined {
  if (typeof v === 'string') return pyFloatText(v);
  return numberOf(v);
}

function toInt(v: unknown, base: number): number | undefined {
  if (typeof v === 'string') {
    if (base !== 10) {
      let s = v.trim().toLowerCase().replace(/_/g, '');
      const sign = s.startsWith('-') ? -1 : 1;
      s = s.replace(/^[-+]/, '');
      const prefix = { 16: '0x', 8: '0o', 2: '0b' }[base];
      if (prefix && s.startsWith(prefix)) s = s.slice(2);
      if (base === 0) {
        const m = /^0([xob])/.exec(s);
        base = m ? { x: 16, o: 8, b: 2 }[m[1] as 'x' | 'o' | 'b'] : 10;
        if (m) s = s.slice(2);
      }
      const digits = '0123456789abcdefghijklmnopqrstuvwxyz'.slice(0, base);
      if (s === '' || [...s].some((c) => !digits.includes(c))) return undefined;
      return sign * Number.parseInt(s, base);
    }
    const i = pyIntText(v);
    if (i !== undefined) return i;
    const f = pyFloatText(v);
    return f === undefined || !Number.isFinite(f) ? undefined : Math.trunc(f);
  }
  const n = numberOf(v);
  return n === undefined || !Number.isFinite(n) ? undefined : Math.trunc(n);
}

/** textwrap.TextWrapper(width, break_long_words, break_on_hyphens, expand_tabs=False, replace_whitespace=False).wrap(text) */
function textWrap(text: string, width: number, breakLong: boolean, breakOnHyphens: boolean): string[] {
  const chunks = text
    .split(/(\s+)/)
    .flatMap((c) => (breakOnHyphens && !/\s/.test(c) ? c.split(/(?<=[A-Za-z0-9]-)(?=[A-Za-z0-9]{2})/) : [c]))
    .filter((c) => c !== '')
    .reverse();
  const lines: string[] = [];
  while (chunks.length > 0) {
    const cur: string[] = [];
    let len = 0;
    if (chunks[chunks.length - 1].trim() === '' && lines.length > 0) chunks.pop();
    while (chunks.length > 0 && len + chunks[chunks.length - 1].length <= width)
      len += (cur.push(chunks.pop()!), cur[cur.length - 1].length);
    if (chunks.length > 0 && chunks[chunks.length - 1].length > width) {
      const chunk = chunks[chunks.length - 1];
      const spaceLeft = width < 1 ? 1 : width - len;
      if (breakLong) {
        let end = spaceLeft;
        if (breakOnHyphens && chunk.length > spaceLeft) {
          const hyphen = chunk.lastIndexOf('-', spaceLeft - 1);
          if (hyphen > 0 && /[^-]/.test(chunk.slice(0, hyphen))) end = hyphen + 1;
        }
        cur.push(chunk.slice(0, end));
        chunks[chunks.length - 1] = chunk.slice(end);
      } else if (cur.length === 0) cur.push(chunks.pop()!);
    }
    if (cur.length > 0 && cur[cur.length - 1].trim() === '') cur.pop();
    if (cur.length > 0) lines.push(cur.join(''));
  }
  return lines;
}

function xmlEscape(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/'/g, '&#39;').replace(/"/g, '&#34;');
}

export function jinjaFilters(): Record<string, Fn> {
  return {
    abs: (v: unknown) => (numberOf(v) !== undefined && numberOf(v)! < 0 ? pyUnary('-', v) : typeof v === 'boolean' ? Number(v) : v),
    float(v: unknown, dflt: unknown = pyFloatOf(0)) {
      const f = toFloat(v);
      return f === undefined ? dflt : pyFloatOf(f);
    },
    int(v: unknown, ...raw: unknown[]) {
      const a = bind(raw, ['default', 'base'], { default: 0, base: 10 });
      const i = toInt(v, Number(a.base));
      return i === undefined ? a.default : i;
    },
    round(v: unknown, ...raw: unknown[]) {
      const a = bind(raw, ['precision', 'method'], { precision: 0, method: 'common' });
      const x = numberOf(v);
      if (x === undefined) throw new TemplateRuntimeError(`type ${typeof v} doesn't define __round__ method`);
      const p = Number(a.precision);
      if (a.method === 'common') {
        // round(int, n) is an int; round(float, n) a float.
        const r = pyRound(x, p);
        return isPyFloat(v) ? pyFloatOf(r) : r;
      }
      if (a.method !== 'ceil' && a.method !== 'floor') throw new TemplateRuntimeError('method must be common, ceil or floor');
      const f = 10 ** p;
      return pyFloatOf((a.method === 'ceil' ? Math.ceil : Math.floor)(x * f) / f);
    },
    truncate(v: unknown, ...raw: unknown[]) {
      const a = bind(raw, ['length', 'killwords', 'end', 'leeway'], { length: 255, killwords: false, end: '...', leeway: null });
      const s = pyText(v);
      const length = Number(a.length);
      const end = pyText(a.end);
      const leeway = a.leeway === null || a.leeway === undefined ? 5 : Number(a.leeway);
      if (length < end.length) throw new TemplateRuntimeError(`expected length >= ${end.length}, got ${length}`);
      if (leeway < 0) throw new TemplateRuntimeError(`expected leeway >= 0, got ${leeway}`);
      if (s.length <= length + leeway) return s;
      if (truthy(a.killwords)) return s.slice(0, length - end.length) + end;
      const head = s.slice(0, length - end.length);
      const space = head.lastIndexOf(' ');
      return (space < 0 ? head : head.slice(0, space)) + end;
    },
    sum(v: unknown, ...raw: unknown[]) {
      const a = bind(raw, ['attribute', 'start'], { attribute: null, start: 0 });
      let items = iterate(v);
      if (a.attribute !== null && a.attribute !== undefined) items = items.map((x) => attrOf(x, a.attribute));
      return items.reduce((acc, x) => pyAdd(acc, x), a.start);
    },
    title: (v: unknown) =>
      pyText(v)
        .split(/([-\s({[<]+)/)
        .filter((w) => w !== '')
        .map((w) => w[0].toUpperCase() + w.slice(1).toLowerCase())
        .join(''),
    trim(v: unknown, chars?: unknown) {
      const s = pyText(v);
      if (chars === undefined || chars === null) return s.trim();
      const set = new Set(pyText(chars));
      let i = 0;
      let j = s.length;
      while (i < j && set.has(s[i])) i++;
      while (j > i && set.has(s[j - 1])) j--;
      return s.slice(i, j);
    },
    indent(v: unknown, ...raw: unknown[]) {
      // Salt's indent (salt/utils/jinja.py): Jinja's, with `indentfirst` as the old name of `first`.
      const a = bind(raw, ['width', 'first', 'blank', 'indentfirst'], { width: 4, first: false, blank: false, indentfirst: null });
      const first = a.indentfirst !== null && a.indentfirst !== undefined ? a.indentfirst : a.first;
      const pad = typeof a.width === 'string' ? a.width : ' '.repeat(Number(a.width));
      let s = pyText(v) + '\n';
      const lines = s.split('\n');
      lines.pop();
      const [head, ...rest] = lines;
      s = [head, ...rest.map((l) => (truthy(a.blank) || l.trim() !== '' ? pad + l : l))].join('\n');
      return truthy(first) ? pad + s : s;
    },
    dictsort(v: unknown, ...raw: unknown[]) {
      const a = bind(raw, ['case_sensitive', 'by', 'reverse'], { case_sensitive: false, by: 'key', reverse: false });
      if (!isMapping(v)) throw new TemplateRuntimeError('Can only sort mappings');
      const pos: number = a.by === 'key' ? 0 : a.by === 'value' ? 1 : -1;
      if (pos < 0) throw new TemplateRuntimeError('You can only sort by either "key" or "value"');
      const key = (x: unknown) => (!truthy(a.case_sensitive) && typeof x === 'string' ? x.toLowerCase() : x);
      const out = Object.entries(v)
        .sort((x: unknown[], y: unknown[]) => pySortCompare(key(x[pos]), key(y[pos])))
        .map((pair) => pyTuple(pair));
      return truthy(a.reverse) ? out.reverse() : out;
    },
    items(v: unknown) {
      if (isUndefined(v)) return [];
      if (!isMapping(v)) throw new TemplateRuntimeError('Can only get item pairs from a mapping.');
      return Object.entries(v).map((pair) => pyTuple(pair));
    },
    groupby(v: unknown, ...raw: unknown[]) {
      const a = bind(raw, ['attribute', 'default', 'case_sensitive'], { default: null, case_sensitive: false });
      const get = (x: unknown) => {
        const value = attrOf(x, a.attribute);
        return isUndefined(value) && a.default !== null ? a.default : value;
      };
      const key = (x: unknown) => {
        const k = get(x);
        return !truthy(a.case_sensitive) && typeof k === 'string' ? k.toLowerCase() : k;
      };
      const sorted = [...iterate(v)].sort((x, y) => pySortCompare(key(x), key(y)));
      const groups: unknown[][] = [];
      for (const item of sorted) {
        const last = groups[groups.length - 1];
        if (last && pySortCompare(key(last[0]), key(item)) === 0) last.push(item);
        else groups.push([item]);
      }
      return groups.map((list) => {
        // _GroupTuple(grouper, list): prints as a tuple, unpacks as one, and has .grouper/.list.
        const t = pyTuple([get(list[0]), list]);
        Object.defineProperty(t, 'grouper', { value: t[0] });
        Object.defineProperty(t, 'list', { value: list });
        return t;
      });
    },
    wordwrap(v: unknown, ...raw: unknown[]) {
      const a = bind(raw, ['width', 'break_long_words', 'wrapstring', 'break_on_hyphens'], {
        width: 79,
        break_long_words: true,
        wrapstring: null,
        break_on_hyphens: true,
      });
      const wrap = a.wrapstring === null || a.wrapstring === undefined ? '\n' : pyText(a.wrapstring);
      const lines = pyText(v).split(/\r\n|\r|\n/);
      if (lines[lines.length - 1] === '') lines.pop();
      return lines
        .map((line) => textWrap(line, Number(a.width), truthy(a.break_long_words), truthy(a.break_on_hyphens)).join(wrap))
        .join(wrap);
    },
    filesizeformat(v: unknown, binary: unknown = false) {
      const bytes = toFloat(v) ?? Number.NaN;
      const base = truthy(binary) ? 1024 : 1000;
      const prefixes = truthy(binary)
        ? ['KiB', 'MiB', 'GiB', 'TiB', 'PiB', 'EiB', 'ZiB', 'YiB']
        : ['kB', 'MB', 'GB', 'TB', 'PB', 'EB', 'ZB', 'YB'];
      if (bytes === 1) return '1 Byte';
      if (bytes < base) return `${Math.trunc(bytes)} Bytes`;
      let i = 0;
      while (i < prefixes.length - 1 && bytes >= base ** (i + 2)) i++;
      return `${((base * bytes) / base ** (i + 2)).toFixed(1)} ${prefixes[i]}`;
    },
    pprint: (v: unknown) => formatPprint(v).replace(/\n$/, ''),
    xmlattr(v: unknown, autospace: unknown = true) {
      if (!isMapping(v)) throw new TemplateRuntimeError('xmlattr takes a mapping');
      const parts: string[] = [];
      for (const [k, val] of Object.entries(v)) {
        if (val === null || val === undefined || isUndefined(val)) continue;
        if (/[\s/>=]/.test(k)) throw new TemplateRuntimeError(`Invalid character in attribute name: ${JSON.stringify(k)}`);
        parts.push(`${xmlEscape(k)}="${xmlEscape(pyText(val))}"`);
      }
      const out = parts.join(' ');
      return out && truthy(autospace) ? ' ' + out : out;
    },
    attr(obj: unknown, name: unknown) {
      // environment.getattr: Python attributes (methods), never dict items.
      const v = lookup(obj, pyText(name), true);
      return isMapping(obj) && !isUndefined(v) && typeof v !== 'function' ? missingMember(obj, name) : v;
    },
  };
}
