import { describe, expect, it } from 'vitest';
import { ArgumentError, Fn, InvocationError, Module, arg } from 'brine/plugin';
import { bindArguments } from '../../../src/plugins/loader/binder';
import { coerceArg } from '../../../src/plugins/loader/coerce';
import { exploreModule } from '../../../src/plugins/loader/explorer';
import { argspecOf } from '../../../src/plugins/loader/catalog';

@Module('schema')
class Schema {
  @Fn({ args: { text: arg.any() } })
  echo({ text }: { text: unknown }): unknown {
    return text;
  }
  @Fn({ args: { name: arg.string({ nonEmpty: true }), punctuation: arg.string({ default: '!' }), times: arg.integer({ optional: true }) } })
  greet(a: { name: string; punctuation: string; times?: number }): unknown {
    return a;
  }
  @Fn({ args: { path: arg.string() }, varargs: true, kwargs: true })
  both(a: { path: string; args: unknown[]; kwargs: Record<string, unknown> }): unknown {
    return a;
  }
  @Fn({ args: {}, kwargs: 'opts' })
  bag(a: { opts: Record<string, unknown> }): unknown {
    return a;
  }
}

const d = exploreModule(Schema);
const fn = (name: string) => d.functions.get(name)!;
const PUB = { fun: 'schema.both', jid: '1' };

function errorOf(f: () => unknown): Error {
  try {
    f();
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected a throw');
}

describe('binding Salt arguments to a schema', () => {
  it.each<[string, unknown[], unknown]>([
    ['positional', ['hi'], { text: 'hi' }],
    ['keyword', [{ __kwarg__: true, text: 'hi' }], { text: 'hi' }],
    ['string keyword (name=value)', ['text=hi'], { text: 'hi' }],
    ['a == is not a keyword', ['text==hi'], { text: 'text==hi' }],
    ['a value with a space before = is positional', ['a b=c'], { text: 'a b=c' }],
  ])('echo: %s', (_, args, expected) => {
    expect(bindArguments(fn('echo'), args)).toEqual([expected]);
  });

  it('applies defaults, leaves optional ones undefined, and coerces', () => {
    expect(bindArguments(fn('greet'), ['bob'])).toEqual([{ name: 'bob', punctuation: '!', times: undefined }]);
    expect(bindArguments(fn('greet'), ['bob', '?', '3'])).toEqual([{ name: 'bob', punctuation: '?', times: 3 }]);
    expect(bindArguments(fn('greet'), [{ __kwarg__: true, times: 2, name: 'x' }])).toEqual([{ name: 'x', punctuation: '!', times: 2 }]);
    // None for an argument with a default means "left out"
    expect(bindArguments(fn('greet'), ['bob', null])).toEqual([{ name: 'bob', punctuation: '!', times: undefined }]);
  });

  it('passes extra positional values to *args and other keywords plus __pub_ data to **kwargs', () => {
    expect(bindArguments(fn('both'), ['/a', 1, 2, { __kwarg__: true, x: 1 }], PUB)).toEqual([
      { path: '/a', args: [1, 2], kwargs: { x: 1, __pub_fun: 'schema.both', __pub_jid: '1' } },
    ]);
    // cross-calls carry no publication data, as in Salt
    expect(bindArguments(fn('bag'), ['k=v'])).toEqual([{ opts: { k: 'v' } }]);
  });

  it.each<[string, unknown[], typeof ArgumentError | typeof InvocationError, string]>([
    ['echo', [], ArgumentError, "echo() missing 1 required positional argument: 'text'"],
    ['echo', ['a', 'b'], ArgumentError, 'echo() takes 1 positional argument but 2 were given'],
    ['greet', ['a', 'b', 1, 2], ArgumentError, 'greet() takes from 1 to 3 positional arguments but 4 were given'],
    ['echo', ['a', { __kwarg__: true, text: 'b' }], ArgumentError, "echo() got multiple values for argument 'text'"],
    ['echo', [{ __kwarg__: true, nope: 1, bad: true }], InvocationError, 'The following keyword arguments are not valid: nope=1, bad=True'],
    ['echo', ['x', 'nope=1'], InvocationError, 'The following keyword arguments are not valid: nope=1'],
    ['greet', [''], InvocationError, 'name must not be empty'],
    ['greet', ['bob', '!', 'many'], InvocationError, "times must be an integer, got 'many'"],
    ['greet', [null], InvocationError, 'name must be a string, got None'],
  ])('%s %j fails as Salt does', (name, args, cls, message) => {
    const err = errorOf(() => bindArguments(fn(name), args, PUB));
    expect(err).toBeInstanceOf(cls);
    expect(err.message).toBe(message);
  });
});

describe('coercion and validation of each type', () => {
  it.each<[string, ReturnType<typeof arg.any>, unknown, unknown]>([
    ['string from string', arg.string(), 'a', 'a'],
    ['string from number', arg.string(), 5, '5'],
    ['integer from number', arg.integer(), 7, 7],
    ['integer from digits', arg.integer(), ' -12 ', -12],
    ['integer from 2.0', arg.integer(), 2.0, 2],
    ['number from string', arg.number(), '1e3', 1000],
    ['number from float string', arg.number(), '2.5', 2.5],
    ['boolean True', arg.boolean(), 'True', true],
    ['boolean 0', arg.boolean(), 0, false],
    ['boolean yes (Salt: false)', arg.boolean(), 'yes', false],
    ['boolean 1', arg.boolean(), '1', true],
    ['list', arg.list(), [1, 'a'], [1, 'a']],
    ['list of integers', arg.list({ of: arg.integer() }), ['1', 2], [1, 2]],
    ['list split on commas', arg.list({ split: true }), 'a,b', ['a', 'b']],
    [
      'list split as Salt split_input does (items stripped, a number is its text)',
      arg.list({ split: true, of: arg.integer() }),
      ' 1, 2',
      [1, 2],
    ],
    ['a number split too', arg.list({ split: true }), 5, ['5']],
    ['dict', arg.dict(), { a: 1 }, { a: 1 }],
    ['any keeps None', arg.any(), null, null],
    ['default is a copy', arg.list({ default: [1] }), undefined, [1]],
    ['enum', arg.string({ enum: ['a', 'b'] }), 'b', 'b'],
    ['min/max', arg.integer({ min: 1, max: 3 }), 3, 3],
    ['pattern', arg.string({ pattern: /^[a-z]+$/ }), 'abc', 'abc'],
  ])('%s', (_, def, value, expected) => {
    expect(coerceArg(def, 'x', value)).toEqual(expected);
  });

  it.each<[ReturnType<typeof arg.any>, unknown, string]>([
    [arg.string(), [1], 'x must be a string, got [1]'],
    [arg.string(), true, 'x must be a string, got True'],
    [arg.integer(), 2.5, 'x must be an integer, got 2.5'],
    [arg.integer(), true, 'x must be an integer, got True'],
    [arg.number(), 'abc', "x must be a number, got 'abc'"],
    [arg.list(), 'a,b', "x must be a list, got 'a,b'"],
    [arg.list({ of: arg.integer() }), [1, 'z'], "x[1] must be an integer, got 'z'"],
    [arg.dict(), [1], 'x must be a dict, got [1]'],
    [arg.string({ enum: ['a', 'b'] }), 'c', "x must be one of 'a', 'b'; got 'c'"],
    [arg.integer({ min: 1 }), 0, 'x must be at least 1, got 0'],
    [arg.integer({ max: 3 }), 4, 'x must be at most 3, got 4'],
    [arg.string({ min: 2 }), 'a', 'x must have at least 2 characters'],
    [arg.list({ max: 1 }), [1, 2], 'x must have at most 1 items'],
    [arg.string({ nonEmpty: true }), '', 'x must not be empty'],
    [arg.dict({ nonEmpty: true }), {}, 'x must not be empty'],
    [arg.string({ pattern: /^[a-z]+$/ }), 'A1', "x must match /^[a-z]+$/, got 'A1'"],
  ])('refuses %j given %j', (def, value, message) => {
    const err = errorOf(() => coerceArg(def, 'x', value));
    expect(err).toBeInstanceOf(InvocationError);
    expect(err.message).toBe(message);
  });
});

describe('argspec from the schema', () => {
  it('lists arguments, defaults (None for optional ones), varargs and kwargs as Salt does', () => {
    expect(argspecOf(fn('echo'))).toEqual({ args: ['text'], defaults: null, varargs: null, kwargs: null });
    expect(argspecOf(fn('greet'))).toEqual({ args: ['name', 'punctuation', 'times'], defaults: ['!', null], varargs: null, kwargs: null });
    expect(argspecOf(fn('both'))).toEqual({ args: ['path'], defaults: null, varargs: true, kwargs: true });
    expect(argspecOf(fn('bag'))).toEqual({ args: null, defaults: null, varargs: null, kwargs: true });
  });
});

describe('schema definition errors', () => {
  it('refuses a required argument after an optional one', () => {
    expect(() => Fn({ args: { a: arg.string({ default: 'x' }), b: arg.string() } })({}, 'm', {})).toThrow(
      /required argument 'b' follows optional argument 'a'/,
    );
  });
  it('refuses a kwargs key that is also an argument', () => {
    expect(() => Fn({ args: { kwargs: arg.dict() }, kwargs: true })({}, 'm', {})).toThrow(/'kwargs' is both an argument/);
  });
});
