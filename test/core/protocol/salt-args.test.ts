import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { isKwargMap, packArgs, unpackArgs } from '../../../src/core/protocol/salt-args';
import { parseCliArgs } from '../../../src/cli/args';

// `salt db1 test.arg 1 two foo=bar` as a real Salt 3007 CLI published it.
const WIRE = path.resolve(__dirname, '../../..', '../shared/salt-wire');
const captured = (
  JSON.parse(readFileSync(path.join(WIRE, 'cli-publish.json'), 'utf8')) as {
    cases: { label: string; request: { load: { arg: unknown[] } } }[];
  }
).cases.find((c) => c.label === 'cli_publish_4_test.arg')!.request.load.arg;

describe('the __kwarg__ codec', () => {
  it("reads and writes Salt's captured arg list", () => {
    expect(captured).toEqual([1, 'two', { __kwarg__: true, foo: 'bar' }]);
    expect(unpackArgs(captured)).toEqual({ args: [1, 'two'], kwargs: { foo: 'bar' } });
    expect(packArgs([1, 'two'], { foo: 'bar' })).toEqual(captured);
    expect(parseCliArgs(['1', 'two', 'foo=bar'])).toEqual(captured);
  });

  it('takes every kwarg dict wherever it stands, later keys winning, as load_args_and_kwargs', () => {
    expect(unpackArgs([{ __kwarg__: true, a: 1 }, 'x', { __kwarg__: true, a: 2, b: 3 }])).toEqual({ args: ['x'], kwargs: { a: 2, b: 3 } });
  });

  it('leaves dicts without __kwarg__ exactly true as positional values', () => {
    const plain = [{ a: 1 }, { __kwarg__: 'true', b: 1 }, { __kwarg__: 1 }, Buffer.from('x'), null, ['__kwarg__']];
    expect(unpackArgs(plain)).toEqual({ args: plain, kwargs: {} });
    expect(plain.some(isKwargMap)).toBe(false);
  });

  it('packs no kwarg dict without keyword arguments, from a Map or an object', () => {
    expect(packArgs(['a'])).toEqual(['a']);
    expect(packArgs(['a'], new Map())).toEqual(['a']);
    expect(packArgs([], new Map([['k', 1]]))).toEqual([{ __kwarg__: true, k: 1 }]);
  });

  it('keeps a __proto__ keyword as data', () => {
    const { kwargs } = unpackArgs([JSON.parse('{"__kwarg__": true, "__proto__": {"x": 1}}')]);
    expect(Object.keys(kwargs)).toEqual(['__proto__']);
    expect(Object.getPrototypeOf(kwargs)).toBe(Object.prototype);
    const packed = packArgs([], kwargs)[0] as Record<string, unknown>;
    expect(Object.keys(packed)).toEqual(['__kwarg__', '__proto__']);
  });
});
