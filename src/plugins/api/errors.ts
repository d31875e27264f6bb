import { BrineError } from '../../core/errors';

/** Every code of the plugin API's error classes (the executor answers a job by them). */
export type PluginErrorCode =
  'COMMAND_EXECUTION' | 'INVOCATION' | 'ARGUMENT' | 'MODULE_UNAVAILABLE' | 'FUNCTION_NOT_FOUND' | 'PLUGIN_DEFINITION';

/**
 * A command or operation inside a module function failed. The executor answers the job with
 * `ERROR: <message>` and retcode 1, as Salt does for `CommandExecutionError`.
 *
 * @example
 * if (res.retcode !== 0) throw new CommandExecutionError('dpkg-query failed', { info: res.stderr });
 */
export class CommandExecutionError extends BrineError<'COMMAND_EXECUTION'> {
  /** Extra data that explains the failure (stderr, a path, ...). */
  readonly info?: unknown;

  constructor(message: string, options: { cause?: unknown; hint?: string; info?: unknown } = {}) {
    super('COMMAND_EXECUTION', message, options);
    this.info = options.info;
  }
}

/**
 * A value given to a module function is not usable (Salt's `SaltInvocationError`). The executor
 * answers `ERROR executing '<mod.fn>': <message>` with retcode 1.
 *
 * @example
 * if (!Number.isInteger(code)) throw new InvocationError('code must be an integer');
 */
export class InvocationError extends BrineError<'INVOCATION'> {
  constructor(message: string, options: { cause?: unknown; hint?: string } = {}) {
    super('INVOCATION', message, options);
  }
}

/**
 * The job's arguments do not fit the function's parameters: too many, too few, a keyword given
 * twice (Python's `TypeError`). The executor answers, as Salt does,
 * `Passed invalid arguments to <mod.fn>: <message>` followed by the function's doc.
 *
 * @example
 * throw new ArgumentError("echo() missing 1 required positional argument: 'text'");
 */
export class ArgumentError extends BrineError<'ARGUMENT'> {
  constructor(message: string, options: { cause?: unknown; hint?: string } = {}) {
    super('ARGUMENT', message, options);
  }
}

/**
 * A module declared itself unavailable on this host (Salt's `__virtual__` returning
 * `(False, reason)`). The message is Salt's `'<mod>' __virtual__ returned False: <reason>`.
 *
 * @example
 * new ModuleUnavailableError('pkgx', 'pkgx needs Linux').message
 * // "'pkgx' __virtual__ returned False: pkgx needs Linux"
 */
export class ModuleUnavailableError extends BrineError<'MODULE_UNAVAILABLE'> {
  readonly module: string;
  readonly reason?: string;

  constructor(module: string, reason?: string) {
    super(
      'MODULE_UNAVAILABLE',
      reason === undefined ? `'${module}' __virtual__ returned False` : `'${module}' __virtual__ returned False: ${reason}`,
    );
    this.module = module;
    this.reason = reason;
  }
}

/**
 * No loaded module provides the function. The message is Salt's `'<mod.fn>' is not available.`
 *
 * @example
 * new FunctionNotFoundError('test.nope').message // "'test.nope' is not available."
 */
export class FunctionNotFoundError extends BrineError<'FUNCTION_NOT_FOUND'> {
  readonly fun: string;

  constructor(fun: string, options: { hint?: string } = {}) {
    super('FUNCTION_NOT_FOUND', `'${fun}' is not available.`, options);
    this.fun = fun;
  }
}

/**
 * A plugin class is written wrongly (no `@Module`, a constructor parameter without
 * `@inject(...)`, a service the host does not provide, two functions with one name). Raised while
 * loading; the loader reports it against the module and keeps loading the others.
 *
 * @example
 * // "Module 'pkgx' (class Pkgx) depends on unknown service IPackages (constructor parameter #1)."
 */
export class PluginDefinitionError extends BrineError<'PLUGIN_DEFINITION'> {
  constructor(message: string, options: { cause?: unknown; hint?: string } = {}) {
    super('PLUGIN_DEFINITION', message, options);
  }
}
