import { describe, expect, it } from 'vitest';
import { readParams } from '../../../src/plugins/loader/params';

describe('readParams', () => {
  it('reads names, defaults, rest and destructuring from source', () => {
    const src = {
      m(a: unknown, b = '(,)', c = { x: [1, 2] }, ...rest: unknown[]) {
        return [a, b, c, rest];
      },
    };
    expect(readParams(src.m)).toEqual([
      { name: 'a', rest: false, hasDefault: false },
      { name: 'b', rest: false, hasDefault: true, defaultText: '"(,)"' },
      { name: 'c', rest: false, hasDefault: true, defaultText: '{ x: [1, 2] }' },
      { name: 'rest', rest: true, hasDefault: false },
    ]);
  });

  it('reads object patterns with their keys', () => {
    const fn = new Function('cmd', '{ cwd, env: e = {}, "odd-key": o, ...more } = {}', 'return 1') as (...a: never[]) => unknown;
    expect(readParams(fn)).toEqual([
      { name: 'cmd', rest: false, hasDefault: false },
      { name: null, rest: false, hasDefault: true, defaultText: '{}', objectPattern: { keys: ['cwd', 'env', 'odd-key'], rest: true } },
    ]);
  });

  it('handles no parameters, comments and async methods', () => {
    const obj = {
      async m(/* first */ a: unknown /* , fake */, b: unknown) {
        return [a, b];
      },
      n() {
        return 1;
      },
    };
    expect(readParams(obj.m).map((p) => p.name)).toEqual(['a', 'b']);
    expect(readParams(obj.n)).toEqual([]);
  });
});
