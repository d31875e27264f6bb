import { describe, expect, it } from 'vitest';
import { noParseNames, parseCliArgs, parseKwarg, positionalWords } from '../../src/cli/args';
import { loadYaml, yamlifyArg } from '../../src/core/pycompat';
import { ConfigError } from '../../src/core/errors';

// Expected values were produced by Salt 3007's own parse_input/yamlify_arg (with
// SaltYamlSafeLoader) on the same words; floats that are whole numbers are plain JS numbers.
const kw = (o: Record<string, unknown>) => ({ __kwarg__: true, ...o });
const cases: [string[], unknown[]][] = [
  [
    ['1', 'two', 'foo=bar'],
    [1, 'two', kw({ foo: 'bar' })],
  ],
  [['1'], [1]],
  [['true'], [true]],
  [['yes'], [true]],
  [['on'], [true]],
  [['1.5'], [1.5]],
  [['1e5'], ['1e5']],
  [['1.5e+3'], [1500]],
  [['null'], [null]],
  [['None'], [null]],
  [['~'], [null]],
  [['[1,2]'], [[1, 2]]],
  [['[1, two, {a: b}]'], [[1, 'two', { a: 'b' }]]],
  [['{a: 1}'], [{ a: 1 }]],
  [['a: 1'], ['a: 1']],
  [['- a'], ['- a']],
  [['hello world'], ['hello world']],
  [['echo a=b'], ['echo a=b']],
  [['x=1 y'], [kw({ x: '1 y' })]],
  [['a==b'], ['a==b']],
  [['=x'], ['=x']],
  [['1abc=2'], ['1abc=2']],
  [['a.b-c=3'], [kw({ 'a.b-c': 3 })]],
  [['_x=on'], [kw({ _x: true })]],
  [['foo='], [kw({ foo: '' })]],
  [['foo=#bar'], [kw({ foo: '#bar' })]],
  [['#'], ['#']],
  [['# comment'], ['# comment']],
  [['a #b'], ['a #b']],
  [['[1] # x'], [[1]]],
  [['|'], ['|']],
  [['!'], ['!']],
  [["'quoted'"], ['quoted']],
  [['"dq"'], ['dq']],
  [['1_000'], ['1_000']],
  [['+1_000'], [1000]],
  [['0777'], [777]],
  [['-0777'], [-511]],
  [['0x1F'], [31]],
  [['0b101'], [5]],
  [['1:30'], [90]],
  [['2020-01-01'], ['2020-01-01']],
  [['12345678901234567890'], ['12345678901234567890']],
  [['20261202131309576618'], ['20261202131309576618']],
  [['-12345678901234567890'], [-12345678901234567890n]],
  [['.inf'], [Infinity]],
  [['-.inf'], [-Infinity]],
  [['.nan'], [NaN]],
  [['  '], ['  ']],
  [[''], ['']],
  [['*foo'], ['*foo']],
  [['@foo'], ['@foo']],
  [['%foo'], ['%foo']],
  // Salt 3007's yamlify_arg leaves a word with a tab or line break as typed (see the pycompat tables).
  [['a\nb'], ['a\nb']],
  [['k=a\nb'], ['k=a\nb']],
  [['k=abc\n'], [kw({ k: 'abc' })]],
  [['x=[1,2]'], [kw({ x: [1, 2] })]],
  [['x={a: b}'], [kw({ x: { a: 'b' } })]],
  [['x=a: b'], [kw({ x: 'a: b' })]],
  [['é=1'], [kw({ é: 1 })]],
  [['über=x'], [kw({ über: 'x' })]],
  [['a=1', 'b=2', 'a=3'], [kw({ a: 3, b: 2 })]],
  [['2.0'], [2]],
  [['1.'], [1]],
  [['-1'], [-1]],
  [['+5'], [5]],
  [['0'], [0]],
  [['00'], [0]],
  [['1:2:3'], [3723]],
  [['yes please'], ['yes please']],
  [['[unclosed'], ['[unclosed']],
  // SaltYamlSafeLoader refuses duplicate keys ("Conflicting ID"), so the word stays text.
  [['{a: 1, a: 2}'], ['{a: 1, a: 2}']],
  [['!!str 5'], ['5']],
  [['!!int 5'], [5]],
  [['!!python/none x'], ['!!python/none x']],
  [[], []],
];

describe('parseCliArgs', () => {
  it.each(cases)('%j', (words, expected) => {
    expect(parseCliArgs(words)).toEqual(expected);
  });

  it('keeps keyword arguments in one trailing map, in first-seen order', () => {
    const out = parseCliArgs(['b=1', 'x', 'a=2']);
    expect(out).toEqual(['x', { __kwarg__: true, b: 1, a: 2 }]);
    expect(Object.keys(out[1] as object)).toEqual(['__kwarg__', 'b', 'a']);
  });

  it('rejects non-string words with a clear error', () => {
    expect(() => parseCliArgs([1 as unknown as string])).toThrow(/must be a string/);
  });
});

describe('parseKwarg', () => {
  it('splits only identifier-like keys', () => {
    expect(parseKwarg('foo=bar=baz')).toEqual(['foo', 'bar=baz']);
    expect(parseKwarg('foo bar=1')).toBeNull();
    expect(parseKwarg('9a=1')).toBeNull();
  });
});

describe('yamlifyArg', () => {
  it('keeps a date as its text', () => {
    expect(yamlifyArg('2024-05-01T10:00:00Z')).toBe('2024-05-01T10:00:00Z');
  });

  // Plain words are resolved without the YAML parser: the answer must be the parser's.
  const plainWords = [
    'web',
    'test.ping',
    'True',
    'TRUE',
    'yes',
    'No',
    'on',
    'Off',
    'y',
    'n',
    '80',
    '017',
    '0o17',
    '0x1F',
    '0b101',
    '190',
    '1.5',
    '.5',
    '+.5',
    '1.',
    '1e3',
    '1.0e+3',
    '.inf',
    '.NaN',
    '+1',
    '~',
    'null',
    'Null',
    'NULL',
    '2024-05-01',
    '2001-12-14t21',
    'a,b',
    '(x)',
    'a=b',
    '=',
    'a.b.c',
    '/tmp/x',
    '~x',
    'x~',
    'web-1',
    'v1.2.3',
    '+',
    '.',
    '..',
    '0',
    '00',
    '09',
  ];
  it.each(plainWords)('reads the plain word %j as the YAML parser does', (word) => {
    let parsed: unknown;
    try {
      parsed = loadYaml(word, 'argument');
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      parsed = word;
    }
    expect(yamlifyArg(word)).toEqual(parsed);
  });
});

describe('positionalWords', () => {
  it("keeps repeated words in the order typed (oclif's argv re-sorts them)", async () => {
    const { Args, Command, Flags } = await import('@oclif/core');
    class Probe extends Command {
      static override strict = false;
      static override args = { target: Args.string({ required: true }), function: Args.string({ required: true }) };
      static override flags = { out: Flags.string() };
      async run() {
        const { raw, argv } = await this.parse(Probe);
        return { words: positionalWords(raw), argv: argv as string[] };
      }
    }
    const got = (await Probe.run(['*', 'mine.get', '--out', 'json', '*', 'test.ping'])) as { words: string[]; argv: string[] };
    expect(got.words).toEqual(['*', 'mine.get', '*', 'test.ping']);
    expect(got.argv).not.toEqual(got.words); // the oclif behaviour this works around
  });
});

describe('--no-parse', () => {
  it('keeps the named keyword arguments as typed, as Salt parse_input(no_parse=...)', () => {
    expect(parseCliArgs(['1', 'a=1', 'b=1', 'c=[1]'], noParseNames(['a,c']))).toEqual([1, { __kwarg__: true, a: '1', b: 1, c: '[1]' }]);
  });
});
