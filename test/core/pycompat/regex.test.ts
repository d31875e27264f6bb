import { describe, expect, it } from 'vitest';
import { pythonReMatch } from '../../../src/core/pycompat';
import { TargetError } from '../../../src/core/errors';

// [pattern, text, bool(re.match(pattern, text))] as printed by CPython 3.11.
const CASES: Array<[string, string, boolean]> = [
  ['web', 'web12', true],
  ['eb', 'web1', false],
  ['web$', 'web', true],
  ['web$', 'web\n', true],
  ['web$', 'web\n\n', false],
  ['web1\\Z', 'web1\n', false],
  ['\\Aweb', 'web', true],
  ['(?P<n>w)e(?P=n)', 'wew', true],
  ['[]a]+', ']a]', true],
  ['a{,2}b', 'aab', true],
  ['a{,2}b', 'aaab', false],
  ['a{', 'a{', true],
  ['x{}', 'x{}', true],
  ['(?i)WEB', 'web', true],
  ['(?s)a.b', 'a\nb', true],
  ['a.b', 'a\nb', false],
  ['a.b', 'a\rb', true],
  ['(?m)^b', 'a\nb', false],
  ['a\\nb', 'a\nb', true],
  ['(?x) w e b  # c', 'web', true],
  ['\\w+\\.example\\.com', 'foo.example.com', true],
  ['\\w+\\.example\\.com', 'fooxexample.com', false],
  ['(a)\\1', 'aa', true],
  ['\\0', '\u0000', true],
  ['\\101', 'A', true],
  ['[\\101]', 'A', true],
  ['(?#c)web', 'web', true],
  ['a|b', 'b', true],
  ['\\x41\\u0042\\U00000043', 'ABC', true],
  ['(?m)a$', 'a\nb', true],
  ['a$', 'a\nb', false],
  ['\\$', '$', true],
  ['}', '}', true],
  [']', ']', true],
  ['web\\-1', 'web-1', true],
];

// Each is a re.error in CPython 3.11.
const INVALID = [
  'web\\e',
  '(unclosed',
  'unopened)',
  '[abc',
  'a**',
  'a{3,1}',
  '(?P<1>a)',
  '(?P<x>a)(?P<x>b)',
  '\\1(a)',
  '[\\8]',
  '\\400',
  '[\\d-z]',
  '(?P=nope)',
  'a(?i)b',
];

describe('pythonReMatch', () => {
  it.each(CASES)('re.match(%j, %j) is %s', (pattern, text, expected) => {
    expect(pythonReMatch(pattern, text)).toBe(expected);
  });

  it.each(INVALID)('rejects %j with a TargetError', (pattern) => {
    expect(() => pythonReMatch(pattern, 'x')).toThrow(TargetError);
    // The failure is cached and thrown again, not turned into a match.
    expect(() => pythonReMatch(pattern, 'y')).toThrowError(expect.objectContaining({ code: 'BAD_TARGET' }));
  });

  it('rejects what JavaScript cannot express instead of guessing', () => {
    expect(() => pythonReMatch('(?i:web)', 'web')).toThrowError(/scoped inline flags/);
    expect(() => pythonReMatch('(?>a)', 'a')).toThrowError(/unsupported group syntax/);
  });
});
