import { describe, expect, it } from 'vitest';
import { fnmatch, hasGlobChars } from '../../../src/core/pycompat';
import { TargetError } from '../../../src/core/errors';

// Expected values produced by CPython 3.11 `fnmatch.fnmatchcase(name, pattern)`.
const CASES: Array<[string, string, boolean]> = [
  ['web*', 'web1', true],
  ['web*', 'Web1', false],
  ['web?', 'web12', false],
  ['web?', 'web1', true],
  ['web[0-9]', 'web5', true],
  ['web[!0-9]', 'web5', false],
  ['web[!0-9]', 'webx', true],
  ['[]]', ']', true],
  ['[]a]', 'a', true],
  ['[!]]', ']', false],
  ['[!]]', 'x', true],
  ['web[', 'web[', true],
  ['web[1', 'web[1', true],
  ['a.b', 'a.b', true],
  ['a.b', 'axb', false],
  ['a+b', 'a+b', true],
  ['a+b', 'aab', false],
  ['(x)|y', '(x)|y', true],
  ['^a$', '^a$', true],
  ['a\\b', 'a\\b', true],
  ['*', 'a/b.c', true],
  ['a*/c', 'a/b/c', true],
  ['[z-a]', 'm', false],
  ['[!z-a]', 'm', true],
  ['[a-]', '-', true],
  ['[a-c-e]', '-', true],
  ['[a-c-e]', 'd', false],
  ['*a*b*c*', 'xxaxxbxxcxx', true],
  ['*a*b*c*', 'xxaxxcxxbxx', false],
  ['??', 'ab', true],
  ['??', 'a', false],
  ['', '', true],
  ['', 'a', false],
  ['a*', 'a\nb', true],
  ['[\\]', '\\', true],
  ['[^a]', '^', true],
  ['[^a]', 'b', false],
  ['*.example.com', 'db.example.com', true],
  ['*.example.com', 'example.com', false],
  ['web-[a-c]*', 'web-b-9', true],
  ['é*', 'éa', true],
  ['?', '😀', true],
];

describe('fnmatch (Python fnmatchcase semantics)', () => {
  it.each(CASES)('fnmatch(%j, %j) is %s', (pattern, name, expected) => {
    expect(fnmatch(pattern, name)).toBe(expected);
  });

  it('does not backtrack exponentially on many stars', () => {
    const pattern = '*a'.repeat(30) + '*b';
    const name = 'a'.repeat(200);
    expect(fnmatch(pattern, name)).toBe(false);
    expect(fnmatch(pattern, name + 'b')).toBe(true);
  });

  it('gives the same answer from the cache', () => {
    expect(fnmatch('db-[0-9]*', 'db-1x')).toBe(true);
    expect(fnmatch('db-[0-9]*', 'db-x1')).toBe(false);
    expect(fnmatch('db-[0-9]*', 'db-1x')).toBe(true);
  });

  it('throws a typed error for a non-string pattern or name', () => {
    const call = (p: unknown, n: unknown) => () => fnmatch(p as string, n as string);
    expect(call(3, 'a')).toThrow(TargetError);
    expect(call('a', undefined)).toThrowError(expect.objectContaining({ code: 'BAD_TARGET' }));
  });

  it('hasGlobChars spots *, ? and [', () => {
    expect(hasGlobChars('web1')).toBe(false);
    expect(hasGlobChars('web*')).toBe(true);
    expect(hasGlobChars('web?')).toBe(true);
    expect(hasGlobChars('web[1]')).toBe(true);
  });
});
