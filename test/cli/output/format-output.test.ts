import { describe, expect, it } from 'vitest';
import { formatOutput, noReturnMessage, isOutputter } from '../../../src/cli/output';
import { markOrdered, pyFloat, pyRepr, pySplitlines } from '../../../src/core/pycompat';

// Expected strings come from running salt/output/nested.py's display logic and Python's own
// repr/json on the same values.
describe('nested', () => {
  it('prints scalars, empty containers and empty strings as Salt does', () => {
    const data = { m: { none: null, f: false, fl: 1.5, big: 1e20, neg: -3, empty: {}, el: [], es: '' } };
    expect(formatOutput('nested', data)).toBe(
      'm:\n    ----------\n    big:\n        1e+20\n    el:\n    empty:\n        ----------\n    es:\n    f:\n        False\n    fl:\n        1.5\n    neg:\n        -3\n    none:\n        None\n',
    );
  });

  it('marks lists and dicts inside lists with |_ and indents continuation lines under "- "', () => {
    const data = { m: [[1, [2, 3]], { a: 1 }, 'x\ny', null] };
    expect(formatOutput('nested', data)).toBe(
      'm:\n    |_\n      - 1\n      |_\n        - 2\n        - 3\n    |_\n      ----------\n      a:\n          1\n    - x\n      y\n    - None\n',
    );
  });

  it('splits lines as str.splitlines and defuses ESC', () => {
    expect(formatOutput('nested', { m: '\x1b[31mred\r\nline2\x0bline3' })).toBe('m:\n    ?[31mred\n    line2\n    line3\n');
  });

  it('decodes UTF-8 bytes and prints nothing for undecodable bytes', () => {
    expect(formatOutput('nested', { m: { b: Buffer.from('ok'), bad: Buffer.from([0xff, 0xfe]) } })).toBe(
      'm:\n    ----------\n    b:\n        ok\n    bad:\n',
    );
  });

  it('starts at nestedIndent', () => {
    expect(formatOutput('nested', { m: [1, 'two'] }, { nestedIndent: 4 })).toBe('    ----------\n    m:\n        - 1\n        - two\n');
  });

  it('sorts keys by code point like Python', () => {
    expect(formatOutput('nested', { b: 1, B: 2, _: 3, é: 4 })).toBe('B:\n    2\n_:\n    3\nb:\n    1\né:\n    4\n');
  });
});

describe('json options', () => {
  it('prints one line for a negative or null indent, sorted for pretty', () => {
    expect(formatOutput('json', { b: [1, { c: 'é' }], a: 1 }, { indent: -1 })).toBe('{"b": [1, {"c": "é"}], "a": 1}\n');
    expect(formatOutput('json', { b: 1, a: 2 }, { indent: null })).toBe('{"b": 1, "a": 2}\n');
    expect(formatOutput('json', { b: 1, a: 2 }, { indent: 'pretty' })).toBe('{\n    "a": 2,\n    "b": 1\n}\n');
    expect(formatOutput('json', [1, 2], { indent: 0 })).toBe('[\n1,\n2\n]\n');
  });

  it('escapes control characters but keeps non-ASCII (ensure_ascii=False)', () => {
    expect(formatOutput('json', 'a\u0001"\\\n✓')).toBe('"a\\u0001\\"\\\\\\n✓"\n');
  });

  it('prints bytes as their Python repr', () => {
    expect(formatOutput('json', { b: Buffer.from([0x61, 0xff, 0x27]) })).toBe('{\n    "b": "b\\"a\\\\xff\'\\""\n}\n');
  });
});

describe('txt, raw, quiet', () => {
  it('txt prints one key: line per line and str() of other values', () => {
    expect(formatOutput('txt', { web1: 'a\nb', web2: { k: [1, null] }, web3: '' })).toBe("web1: a\nweb1: b\nweb2: {'k': [1, None]}\n");
  });

  it('txt prints a non-dict string as is and other data with pprint', () => {
    expect(formatOutput('txt', 'hello')).toBe('hello\n');
    expect(formatOutput('txt', [1, 'x'])).toBe("[1, 'x']\n");
  });

  it('raw prints the Python repr, quiet prints nothing', () => {
    expect(formatOutput('raw', { web1: true })).toBe("{'web1': True}\n");
    expect(formatOutput('quiet', { web1: true })).toBe('');
  });

  it('prints nothing for output that is only whitespace', () => {
    expect(formatOutput('nested', { m: '' }).length).toBeGreaterThan(0);
    expect(formatOutput('raw', '   ')).toBe('');
  });
});

describe('OrderedDict', () => {
  // Salt's high data is an OrderedDict (state.show_sls): nested and yaml (SafeOrderedDumper) keep
  // its order, and sort a plain dict's keys.
  it('keeps an OrderedDict in order in nested and yaml, and sorts a dict', () => {
    const data = { m: markOrdered({ b: { z: 1, a: 2 }, a: 1 }) };
    expect(formatOutput('nested', data)).toBe(
      'm:\n    ----------\n    b:\n        ----------\n        a:\n            2\n        z:\n            1\n    a:\n        1\n',
    );
    expect(formatOutput('yaml', data)).toBe('m:\n  b:\n    a: 2\n    z: 1\n  a: 1\n');
  });
});

describe('errors', () => {
  it('names an unknown outputter', () => {
    expect(() => formatOutput('nope' as 'json', 1)).toThrow(expect.objectContaining({ code: 'BAD_OUTPUTTER' }));
    expect(isOutputter('yaml')).toBe(true);
    expect(isOutputter('highstate')).toBe(false);
  });

  it('refuses data that is not msgpack-like', () => {
    for (const kind of ['nested', 'json', 'yaml', 'raw', 'pprint'] as const) {
      expect(() => formatOutput(kind, { f: () => 1 })).toThrow(expect.objectContaining({ code: 'BAD_OUTPUT_DATA' }));
    }
  });

  it('refuses a non-integer indent', () => {
    expect(() => formatOutput('yaml', 1, { indent: 'pretty' })).toThrow(expect.objectContaining({ code: 'BAD_OUTPUT_INDENT' }));
  });
});

describe('python repr helpers', () => {
  it.each([
    [0.1, '0.1'],
    [1e16, '1e+16'],
    [1.5e-7, '1.5e-07'],
    [0.0001, '0.0001'],
    [0.00001, '1e-05'],
    [123456789.125, '123456789.125'],
    [1e15 + 0.5, '1000000000000000.5'],
    [-0, '-0.0'],
  ])('pyFloat(%d) = %s', (x, s) => {
    expect(pyFloat(x)).toBe(s);
  });

  it('quotes strings as Python does', () => {
    expect(pyRepr("it's")).toBe('"it\'s"');
    expect(pyRepr('both \' and "')).toBe("'both \\' and \"'");
    expect(pyRepr('tab\tnl\n\u0000\u200b✓')).toBe("'tab\\tnl\\n\\x00\\u200b✓'");
    expect(pyRepr(new Map<unknown, unknown>([[1, 'a']]))).toBe("{1: 'a'}");
  });

  it('splits lines like str.splitlines', () => {
    expect(pySplitlines('a\r\nb\rc\n\nd\n')).toEqual(['a', 'b', 'c', '', 'd']);
    expect(pySplitlines('a\nb', true)).toEqual(['a\n', 'b']);
    expect(pySplitlines('')).toEqual([]);
  });
});

describe('noReturnMessage', () => {
  it('is the text Salt returns for a silent minion', () => {
    expect(noReturnMessage('1', 'Not connected').split('\n')[0]).toBe('Minion did not return. [Not connected]');
  });
});
