import type { ArgSchema, ArgsOf } from './args';
import {
  recordFn,
  recordGrainsProvider,
  recordModule,
  type FnDocs,
  type FnContract,
  type FnMetadata,
  type ModuleMetadata,
  type PluginKind,
} from './metadata';

/** Options of {@link Module}. */
export interface ModuleOptions {
  /**
   * Salt's `__virtual__`: called once at load with all grains. `true` = available; a string =
   * unavailable for that reason; `false` = unavailable without a reason.
   */
  available?: (grains: Record<string, unknown>) => true | string | false;
  /** Module documentation, shown by `sys.doc`. */
  doc?: string;
  /**
   * The name of the file Salt defines this module in, when it is not the module's name (`cmdmod`
   * for `cmd`, `aptpkg` for Debian's `pkg`): Salt's `disable_modules` (and `disable_states`, ...)
   * name modules so, and turn this one off by it as well as by its name.
   */
  file?: string;
}

const MODULE_NAME = /^[A-Za-z][A-Za-z0-9_]*$/;

/**
 * Marks a class as the execution module `name`. Records metadata only: the loader decides when
 * and into which container the class is registered.
 *
 * @example
 * @Module('pkgx', { available: (grains) => grains.kernel === 'Linux' || 'pkgx needs Linux' })
 * export class Pkgx { ... }
 */
export function Module(name: string, options: ModuleOptions = {}): ClassDecorator {
  return moduleDecorator('execution', '@Module', name, options);
}

/** The class decorator of one plugin kind; ./kinds.ts builds the others with it. */
export function moduleDecorator(kind: PluginKind, decorator: string, name: string, options: ModuleOptions): ClassDecorator {
  if (typeof name !== 'string' || !MODULE_NAME.test(name)) {
    throw new TypeError(`${decorator} name must be a word of letters, digits and '_' (got ${JSON.stringify(name)})`);
  }
  if (options.file !== undefined && (typeof options.file !== 'string' || !MODULE_NAME.test(options.file))) {
    throw new TypeError(`${decorator} file must be a word of letters, digits and '_' (got ${JSON.stringify(options.file)})`);
  }
  return (target) => {
    const meta: ModuleMetadata = { kind, name, doc: options.doc, available: options.available, file: options.file };
    recordModule(target as unknown as abstract new (...args: never[]) => unknown, meta);
  };
}

/** Options of {@link Fn}. */
export interface FnOptions<
  S extends ArgSchema = ArgSchema,
  V extends boolean | string = boolean | string,
  K extends boolean | string = boolean | string,
> extends FnDocs {
  /** Public name when it differs from the method's (`true_` → `'true'`). */
  name?: string;
  /**
   * The arguments, in positional order. The method then receives one object holding them
   * (coerced, validated, defaults applied). Leave it out only in plain JavaScript: the loader then
   * reads the parameter names from the method's source and passes them positionally.
   */
  args?: S;
  /** Python's `*args`: extra positional values go, as a list, to this key (`true` = `args`). */
  varargs?: V;
  /**
   * Python's `**kwargs`: other keyword arguments, plus Salt's `__pub_*` job data, go to this key
   * (`true` = `kwargs`). Without a schema: which parameter is the options object (`true` = the
   * last one, a string = by name).
   */
  kwargs?: K;
  /** The outputter the CLI prints this function's return with (Salt's `__outputter__`), e.g. 'highstate'. */
  outputter?: string;
}

type KeyOf<V, Fallback extends string> = V extends true ? Fallback : V extends string ? V : never;

/** The object a function declared with these options receives. */
export type CallArgs<S extends ArgSchema, V, K> = ArgsOf<S> & { [P in KeyOf<V, 'args'>]: unknown[] } & {
  [P in KeyOf<K, 'kwargs'>]: Record<string, unknown>;
};

/**
 * A method decorator that checks at compile time that the method accepts `A`: a method whose
 * parameter type disagrees with the schema does not compile.
 */
export type TypedMethodDecorator<A> = <M extends (args: A) => unknown>(
  prototype: object,
  propertyKey: string | symbol,
  descriptor: TypedPropertyDescriptor<M>,
) => void;

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Checks what TypeScript cannot: names, and no required argument after an optional one. */
function checkArgs(where: string, options: FnOptions): void {
  if (options.args !== undefined && (typeof options.args !== 'object' || options.args === null || Array.isArray(options.args))) {
    throw new TypeError(
      `${where}: args must map each argument name to arg.string(), arg.integer(), ... (got ${JSON.stringify(options.args)})`,
    );
  }
  const names = Object.keys(options.args ?? {});
  let optionalSeen: string | undefined;
  for (const name of names) {
    const def = options.args![name];
    if (!NAME.test(name)) throw new TypeError(`${where}: argument name ${JSON.stringify(name)} is not a word`);
    if (typeof def !== 'object' || def === null || typeof def.type !== 'string') {
      throw new TypeError(`${where}: argument '${name}' must be defined with arg.string(), arg.integer(), ...`);
    }
    if (def.optional) optionalSeen ??= name;
    else if (optionalSeen) {
      throw new TypeError(
        `${where}: required argument '${name}' follows optional argument '${optionalSeen}' (Python allows no such order)`,
      );
    }
  }
  for (const key of [keyOf(options.varargs, 'args'), options.args ? keyOf(options.kwargs, 'kwargs') : undefined]) {
    if (key !== undefined && names.includes(key)) throw new TypeError(`${where}: '${key}' is both an argument and the varargs/kwargs key`);
  }
}

function keyOf(v: boolean | string | undefined, fallback: string): string | undefined {
  return v === true ? fallback : typeof v === 'string' ? v : undefined;
}

/**
 * Marks a method as a callable module function (`mod.fn`). Records metadata only. Methods whose
 * public name starts with `_` stay private. With `args`, the method receives one object holding
 * the declared arguments, and TypeScript checks the method's parameter type against the schema.
 *
 * @example
 * @Fn({
 *   summary: 'Greet someone',
 *   examples: ["salt '*' hello.greet bob punctuation='?'"],
 *   args: { name: arg.string({ nonEmpty: true }), punctuation: arg.string({ default: '!' }) },
 * })
 * greet({ name, punctuation }: { name: string; punctuation: string }): string {
 *   return `hello ${name}${punctuation}`;
 * }
 *
 * // Python's def arg(*args, **kwargs):
 * @Fn({ summary: 'Return the arguments', args: {}, varargs: true, kwargs: true })
 * arg({ args, kwargs }: { args: unknown[]; kwargs: Record<string, unknown> }) { return { args, kwargs }; }
 */
export function Fn<const S extends ArgSchema, const V extends boolean | string = false, const K extends boolean | string = false>(
  options: FnOptions<S, V, K> & { args: S },
): TypedMethodDecorator<CallArgs<S, V, K>>;
/** Without `args` (plain JavaScript): parameters are read from the method's source. */
export function Fn(options?: FnOptions<never, never, boolean | string>): MethodDecorator;
export function Fn(options: FnOptions = {}): MethodDecorator {
  return markFunction('fn', '@Fn', options);
}

/** The method decorator of one call contract; ./kinds.ts builds `@State`, `@Render`, `@Pillar` with it. */
export function markFunction(
  contract: FnContract,
  decorator: string,
  options: FnOptions,
  extra: Partial<FnMetadata> = {},
): MethodDecorator {
  return (prototype, propertyKey) => {
    if (typeof propertyKey !== 'string') throw new TypeError(`${decorator} can only mark methods with string names`);
    checkArgs(`${decorator} on ${propertyKey}`, options);
    const { varargs, ...rest } = options;
    const meta: FnMetadata = { method: propertyKey, ...rest, ...extra };
    if (contract !== 'fn') meta.contract = contract;
    const varargsKey = keyOf(varargs, 'args');
    if (varargsKey !== undefined) meta.varargs = varargsKey;
    if (options.args && options.kwargs !== undefined) {
      const k = keyOf(options.kwargs, 'kwargs');
      if (k === undefined) delete meta.kwargs;
      else meta.kwargs = k;
    }
    recordFn(prototype, meta);
  };
}

/**
 * Marks a class as a grains provider. Its `collect()` method returns grains; providers run at
 * minion start and on grains refresh, never per job.
 *
 * @example
 * @GrainsProvider('datacenter')
 * export class DatacenterGrains {
 *   collect() { return { datacenter: 'paris-1' }; }
 * }
 */
export function GrainsProvider(name: string): ClassDecorator {
  return (target) => {
    recordGrainsProvider(target as unknown as abstract new (...args: never[]) => unknown, { name });
  };
}
