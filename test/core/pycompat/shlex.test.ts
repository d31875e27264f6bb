import { describe, expect, it } from 'vitest';
import { ShlexError } from '../../../src/core/pycompat';
import { shlexSplit } from '../../../src/core/pycompat';

describe('shlexSplit', () => {
  it('splits like Python shlex.split (POSIX)', () => {
    expect(shlexSplit(`echo "a b" 'c d' e\\ f`)).toEqual(['echo', 'a b', 'c d', 'e f']);
    expect(shlexSplit(`a"b c"d ''`)).toEqual(['ab cd', '']);
    expect(shlexSplit(`"say \\"hi\\" \\n"`)).toEqual(['say "hi" \\n']);
    expect(shlexSplit('  ')).toEqual([]);
  });
  it('throws a typed error on unbalanced quotes', () => {
    expect(() => shlexSplit(`echo "oops`)).toThrow(ShlexError);
    expect(() => shlexSplit(`echo 'oops`)).toThrow(ShlexError);
  });
});
