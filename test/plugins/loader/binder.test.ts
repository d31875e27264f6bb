import { describe, expect, it } from 'vitest';
import { ArgumentError, InvocationError } from 'brine/plugin';
import { bindArguments, splitArgs } from '../../../src/plugins/loader/binder';
import type { FnDescriptor } from '../../../src/plugins/loader/descriptors';

const fn = (name: string, params: FnDescriptor['params'], kwargsKeys: string[] | null = []): FnDescriptor => ({
  name,
  method: name,
  doc: '',
  docs: {},
  params,
  kwargsKeys,
  call: 'positional',
  contract: 'fn',
});
const echo = fn('echo', [{ name: 'text', kind: 'positional', optional: false }]);
const two = fn('two', [
  { name: 'a', kind: 'positional', optional: false },
  { name: 'b', kind: 'positional', optional: false },
  { name: 'c', kind: 'positional', optional: true },
]);
const argFn = fn(
  'arg',
  [
    { name: 'kwargs', kind: 'kwargs', optional: true },
    { name: 'args', kind: 'rest', optional: true },
  ],
  null,
);

function errorOf(f: () => unknown): Error {
  try {
    f();
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected a throw');
}

describe('bindArguments', () => {
  it('maps positional values and keywords by name', () => {
    expect(bindArguments(echo, ['hi'])).toEqual(['hi']);
    expect(bindArguments(echo, [{ __kwarg__: true, text: 'kw' }])).toEqual(['kw']);
    expect(bindArguments(two, [1, { __kwarg__: true, b: 2 }])).toEqual([1, 2, undefined]);
  });

  it('uses Python wording for missing and extra arguments', () => {
    const missing = errorOf(() => bindArguments(echo, []));
    expect(missing).toBeInstanceOf(ArgumentError);
    expect(missing.message).toBe("echo() missing 1 required positional argument: 'text'");
    expect(errorOf(() => bindArguments(two, [])).message).toBe("two() missing 2 required positional arguments: 'a' and 'b'");
    expect(errorOf(() => bindArguments(echo, [1, 2])).message).toBe('echo() takes 1 positional argument but 2 were given');
    expect(errorOf(() => bindArguments(two, [1, 2, 3, 4])).message).toBe('two() takes from 2 to 3 positional arguments but 4 were given');
    expect(errorOf(() => bindArguments(fn('ping', []), [1])).message).toBe('ping() takes 0 positional arguments but 1 was given');
    expect(errorOf(() => bindArguments(echo, ['a', { __kwarg__: true, text: 'b' }])).message).toBe(
      "echo() got multiple values for argument 'text'",
    );
  });

  it("rejects unknown keywords as Salt's invalid kwargs", () => {
    const err = errorOf(() => bindArguments(echo, ['x', { __kwarg__: true, foo: 'bar', n: 1 }]));
    expect(err).toBeInstanceOf(InvocationError);
    expect(err.message).toBe('The following keyword arguments are not valid: foo=bar, n=1');
  });

  it('gives the options object the remaining keywords and __pub_* data', () => {
    const pub = { fun: 'test.arg', jid: '1' };
    expect(bindArguments(argFn, [1, 'two', { __kwarg__: true, foo: 'bar' }], pub)).toEqual([
      { foo: 'bar', __pub_fun: 'test.arg', __pub_jid: '1' },
      1,
      'two',
    ]);
    const limited = fn(
      'run',
      [
        { name: 'cmd', kind: 'positional', optional: false },
        { name: 'kwargs', kind: 'kwargs', optional: true },
      ],
      ['cwd'],
    );
    expect(bindArguments(limited, ['ls', { __kwarg__: true, cwd: '/' }], pub)).toEqual(['ls', { cwd: '/' }]);
    expect(() => bindArguments(limited, ['ls', { __kwarg__: true, nope: 1 }])).toThrow(InvocationError);
  });

  it('splits args: maps without __kwarg__ stay positional', () => {
    expect(splitArgs([{ a: 1 }, { __kwarg__: true, b: 2 }])).toEqual({ positional: [{ a: 1 }], keywords: new Map([['b', 2]]) });
  });
});
