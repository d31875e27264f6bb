/**
 * The argument schema of plugin functions (Choria's DDL inputs, oclif's `Args`): each argument has
 * a type, a default or optional/required, and validation. The executor binds Salt's positional and
 * keyword arguments to it, coerces and validates before the method runs; `sys.argspec` and
 * `sys.doc` read it without running the plugin. Definitions are plain data.
 */

/** The value types an argument can have. */
export type ArgType = 'string' | 'integer' | 'number' | 'boolean' | 'list' | 'dict' | 'any';

/**
 * One argument's definition, as the `arg.*` builders return it. `T` is the value the method
 * receives; `Given` is true when the method always gets a value (required, or with a default).
 */
export interface ArgDef<T = unknown, Given extends boolean = boolean> {
  readonly type: ArgType;
  /** Has a default or was declared `optional`: the caller may leave it out. */
  readonly optional: boolean;
  /** The value used when the caller leaves it out (shown by `sys.argspec`). */
  readonly default?: T;
  /** One line about the argument. */
  readonly description?: string;
  /** The only values accepted. */
  readonly enum?: readonly unknown[];
  /** Lowest value (integer, number) or length (string, list). */
  readonly min?: number;
  /** Highest value (integer, number) or length (string, list). */
  readonly max?: number;
  /** Refuse '' , [] and {}. */
  readonly nonEmpty?: boolean;
  /** A string must match it. */
  readonly pattern?: RegExp;
  /** A list's items: each is coerced and checked as this argument. */
  readonly of?: ArgDef;
  /** A list given as a string (or a number) is split on commas, items stripped (Salt's `split_input`, `names='a, b'`). */
  readonly split?: boolean;
  /** Type-level only: never set. */
  readonly __given?: Given;
}

/** The arguments of one function, in positional order. */
export type ArgSchema = Record<string, ArgDef>;

/** Options every argument takes. */
interface Common<T> {
  /** Value when left out; makes the argument optional. */
  default?: T;
  /** May be left out without a default: the method receives `undefined`. */
  optional?: boolean;
  description?: string;
}

export interface StringArgOptions extends Common<string> {
  enum?: readonly string[];
  nonEmpty?: boolean;
  pattern?: RegExp;
  /** Length bounds. */
  min?: number;
  max?: number;
}
export interface NumberArgOptions extends Common<number> {
  enum?: readonly number[];
  min?: number;
  max?: number;
}
export type BooleanArgOptions = Common<boolean>;
export interface ListArgOptions<T> extends Common<T[]> {
  of?: ArgDef<T>;
  nonEmpty?: boolean;
  split?: boolean;
  /** Length bounds. */
  min?: number;
  max?: number;
}
export interface DictArgOptions extends Common<Record<string, unknown>> {
  nonEmpty?: boolean;
}
export type AnyArgOptions = Common<unknown>;

/** Whether options make the value always present (required, or defaulted). */
type GivenBy<O> = O extends { default: unknown } ? true : O extends { optional: true } ? false : true;

function define<T, G extends boolean>(type: ArgType, options: object = {}): ArgDef<T, G> {
  const o = options as Common<unknown>;
  const def = { ...options, type, optional: o.optional === true || 'default' in o };
  if (def.optional && !('default' in o)) delete (def as { default?: unknown }).default;
  return Object.freeze(def) as unknown as ArgDef<T, G>;
}

/**
 * Builders of argument definitions.
 *
 * @example
 * @Fn({
 *   summary: 'Greet someone',
 *   examples: ["salt '*' hello.greet bob punctuation='?'"],
 *   args: {
 *     name: arg.string({ nonEmpty: true }),
 *     punctuation: arg.string({ default: '!', enum: ['!', '?', '.'] }),
 *     times: arg.integer({ default: 1, min: 1 }),
 *   },
 * })
 * greet({ name, punctuation, times }: { name: string; punctuation: string; times: number }) { ... }
 */
export const arg = {
  /** A string; numbers are turned into their text, as Python's `str()`. */
  string<const O extends StringArgOptions>(options?: O): ArgDef<O extends { enum: readonly (infer E)[] } ? E : string, GivenBy<O>> {
    return define('string', options);
  },
  /** A whole number; strings of digits are read as Python's `int()` reads them. */
  integer<const O extends NumberArgOptions>(options?: O): ArgDef<number, GivenBy<O>> {
    return define('integer', options);
  },
  /** A number; numeric strings are read as Python's `float()` reads them. */
  number<const O extends NumberArgOptions>(options?: O): ArgDef<number, GivenBy<O>> {
    return define('number', options);
  },
  /** A boolean with Salt's `is_true` rules: `True`, `true`, `1`, `2.5` are true; `False`, `no`, `0` false. */
  boolean<const O extends BooleanArgOptions>(options?: O): ArgDef<boolean, GivenBy<O>> {
    return define('boolean', options);
  },
  /** A list; with `of`, each item is coerced and checked. */
  list<T = unknown, const O extends ListArgOptions<T> = ListArgOptions<T>>(options?: O & { of?: ArgDef<T> }): ArgDef<T[], GivenBy<O>> {
    return define('list', options);
  },
  /** A map (a Python dict). */
  dict<const O extends DictArgOptions>(options?: O): ArgDef<Record<string, unknown>, GivenBy<O>> {
    return define('dict', options);
  },
  /** Any value, unchecked. */
  any<const O extends AnyArgOptions>(options?: O): ArgDef<unknown, GivenBy<O>> {
    return define('any', options);
  },
};

type ValueOf<D> = D extends ArgDef<infer T, boolean> ? T : never;
type GivenKeys<S> = { [K in keyof S]: S[K] extends ArgDef<unknown, true> ? K : never }[keyof S];
type Simplify<T> = { [K in keyof T]: T[K] } & {};

/**
 * The object a function with schema `S` receives: required and defaulted arguments are always
 * there, optional ones may be `undefined`.
 *
 * @example
 * type A = ArgsOf<{ name: ArgDef<string, true>; count: ArgDef<number, false> }>; // { name: string; count?: number }
 */
export type ArgsOf<S extends ArgSchema> = Simplify<
  { [K in GivenKeys<S>]: ValueOf<S[K]> } & { [K in Exclude<keyof S, GivenKeys<S>>]?: ValueOf<S[K]> }
>;
