import {
  recordFn,
  recordGrainsProvider,
  recordModule,
  type FnMetadata,
  type ModuleMetadata,
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
  if (typeof name !== 'string' || !MODULE_NAME.test(name)) {
    throw new TypeError(`@Module name must be a word of letters, digits and '_' (got ${JSON.stringify(name)})`);
  }
  return (target) => {
    const meta: ModuleMetadata = { name, doc: options.doc, available: options.available };
    recordModule(target as unknown as abstract new (...args: never[]) => unknown, meta);
  };
}

/** Options of {@link Fn}. */
export interface FnOptions {
  /** Public name when it differs from the method's (`true_` → `'true'`). */
  name?: string;
  /** Documentation with a CLI example, shown by `sys.doc`. */
  doc?: string;
  /**
   * Parameter names, in order, when the method's source cannot tell them (a minified build).
   * Prefix a name with `...` for a rest parameter; suffix it with `?` when it has a default.
   */
  args?: string[];
  /**
   * Which parameter is the options object that receives every keyword argument not matched to
   * another parameter, plus Salt's `__pub_*` job data (Python's `**kwargs`): `true` = the last
   * one, a string = the parameter of that name. Without it, a parameter named `kwargs`, or an
   * object destructuring pattern in last position (`{ cwd, env } = {}`, which accepts only its
   * own keys unless it has a `...rest` element), is the options object.
   */
  kwargs?: boolean | string;
  /** The outputter the CLI prints this function's return with (Salt's `__outputter__`), e.g. 'highstate'. */
  outputter?: string;
}

/**
 * Marks a method as a callable module function (`mod.fn`). Records metadata only. Methods whose
 * public name starts with `_` stay private.
 *
 * @example
 * @Fn({ doc: "Return text. CLI: salt '*' test.echo hello" })
 * echo(text: unknown): unknown { return text; }
 */
export function Fn(options: FnOptions = {}): MethodDecorator {
  return (prototype, propertyKey) => {
    if (typeof propertyKey !== 'string') {
      throw new TypeError('@Fn can only mark methods with string names');
    }
    const meta: FnMetadata = { method: propertyKey, ...options };
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
