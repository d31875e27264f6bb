import { FunctionNotFoundError, ModuleUnavailableError } from '../api/errors';
import type { FnDescriptor, ModuleDescriptor } from './descriptors';

/** Where a module came from: `builtin`, a module_dirs file path, or `npm:<package>`. */
export type PluginOrigin = string;

/** A module or file that could not be loaded, with the reason. */
export interface LoadProblem {
  origin: PluginOrigin;
  /** The module name when it was known before the failure. */
  module?: string;
  error: Error;
}

/** A loaded, available module. */
export interface LoadedModule {
  descriptor: ModuleDescriptor;
  origin: PluginOrigin;
}

/**
 * The modules a loader found: available ones by name, unavailable ones with their reasons
 * (Salt's `missing_modules`), and the problems met on the way.
 *
 * @example
 * registry.find('test.ping');          // { module, fn } or undefined
 * registry.missingMessage('pkgx.list'); // "'pkgx' __virtual__ returned False: pkgx needs Linux"
 */
export class ModuleRegistry {
  private readonly modules = new Map<string, LoadedModule>();
  private readonly unavailableReasons = new Map<string, string | undefined>();
  readonly problems: LoadProblem[] = [];
  /** `{ module, replaced, by }`: a later source's module took over an earlier one's name. */
  readonly overrides: { module: string; replaced: PluginOrigin; by: PluginOrigin }[] = [];
  /** Every plugin file found in module_dirs, loaded or not (Salt's `test.not_loaded` reads them). */
  readonly files: string[] = [];

  /** Register an available module; a module of the same name loaded earlier is replaced. */
  add(descriptor: ModuleDescriptor, origin: PluginOrigin): void {
    const previous = this.modules.get(descriptor.name);
    if (previous) this.overrides.push({ module: descriptor.name, replaced: previous.origin, by: origin });
    this.modules.set(descriptor.name, { descriptor, origin });
    this.unavailableReasons.delete(descriptor.name);
  }

  /** Record a module that declared itself unavailable (kept only if no available one has the name). */
  markUnavailable(name: string, reason: string | undefined): void {
    if (!this.modules.has(name)) this.unavailableReasons.set(name, reason);
  }

  module(name: string): LoadedModule | undefined {
    return this.modules.get(name);
  }

  /** Names of available modules, sorted. */
  moduleNames(): string[] {
    return [...this.modules.keys()].sort();
  }

  /** Unavailable modules and their reasons. */
  unavailable(): ReadonlyMap<string, string | undefined> {
    return this.unavailableReasons;
  }

  /** Every `mod.fn`, sorted. */
  functionNames(): string[] {
    const names: string[] = [];
    for (const [mod, { descriptor }] of this.modules) for (const fn of descriptor.functions.keys()) names.push(`${mod}.${fn}`);
    return names.sort();
  }

  find(fun: string): { module: LoadedModule; fn: FnDescriptor } | undefined {
    const dot = fun.indexOf('.');
    if (dot <= 0) return undefined;
    const module = this.modules.get(fun.slice(0, dot));
    const fn = module?.descriptor.functions.get(fun.slice(dot + 1));
    return module && fn ? { module, fn } : undefined;
  }

  /** The error for a function that is not there, with the module's `__virtual__` reason if any. */
  missingError(fun: string): FunctionNotFoundError | ModuleUnavailableError {
    const mod = fun.split('.')[0];
    if (!this.modules.has(mod) && this.unavailableReasons.has(mod)) {
      return new ModuleUnavailableError(mod, this.unavailableReasons.get(mod));
    }
    const problem = this.problems.find((p) => p.module === mod);
    return new FunctionNotFoundError(fun, problem ? { hint: `loading '${mod}' failed: ${problem.error.message}` } : {});
  }

  /** Salt's `sys.doc '<prefix>*'`: the docs of every function whose name starts with `prefix`. */
  docsStartingWith(prefix: string): Record<string, string> {
    const docs: Record<string, string> = {};
    for (const name of this.functionNames()) {
      if (name.startsWith(prefix)) docs[name] = this.find(name)?.fn.doc ?? '';
    }
    return docs;
  }
}
