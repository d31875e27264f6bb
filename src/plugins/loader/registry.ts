import { FunctionNotFoundError, ModuleUnavailableError } from '../api/errors';
import type { PluginKind } from '../api/metadata';
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
 * The name a failed source is listed under: its module name when known, else a module_dirs
 * file's base name (Salt names modules after their files), else the origin (`npm:<name>`).
 *
 * @example
 * problemKey({ origin: '/srv/modules/pkgx.js', error }) // 'pkgx'
 */
export function problemKey(problem: { origin: PluginOrigin; module?: string }): string {
  if (problem.module !== undefined) return problem.module;
  const { origin } = problem;
  if (!origin.startsWith('/')) return origin;
  return origin.slice(origin.lastIndexOf('/') + 1).replace(/\.(c?js|ts)$/, '');
}

function sorted(names: Iterable<string>): string[] {
  return [...names].sort();
}

/**
 * The modules a loader found, per kind (execution modules, state modules, runners, ...):
 * available ones by name, unavailable ones with their reasons (Salt's `missing_modules`), and the
 * problems met on the way. `kind` defaults to execution modules everywhere.
 *
 * @example
 * registry.find('test.ping');          // { module, fn } or undefined
 * registry.find('pkg.installed', 'state');
 * registry.missingError('pkgx.list');  // "'pkgx' __virtual__ returned False: pkgx needs Linux"
 */
export class ModuleRegistry {
  private readonly modules = new Map<PluginKind, Map<string, LoadedModule>>();
  private readonly unavailableReasons = new Map<PluginKind, Map<string, string | undefined>>();
  readonly problems: LoadProblem[] = [];
  /** `{ module, replaced, by }`: a later source's module took over an earlier one's name. */
  readonly overrides: { module: string; replaced: PluginOrigin; by: PluginOrigin; kind: PluginKind }[] = [];
  /** Every plugin file found in module_dirs, loaded or not (Salt's `test.not_loaded` reads them). */
  readonly files: string[] = [];

  /** Modules registered by {@link defer} and not loaded yet, by kind and name, in load order. */
  private readonly pending = new Map<PluginKind, Map<string, (() => void)[]>>();
  /** Told what the loading of deferred modules found (problems, names left unavailable), after each settle. */
  onSettled?: (problems: readonly LoadProblem[], unavailable: ReadonlyArray<readonly [string, string | undefined, PluginKind]>) => void;

  private of<T>(map: Map<PluginKind, Map<string, T>>, kind: PluginKind): Map<string, T> {
    let m = map.get(kind);
    if (!m) map.set(kind, (m = new Map()));
    return m;
  }

  /**
   * A module known by kind and name whose code is loaded only when that name (or the whole kind)
   * is first asked for: `load` then adds it here as an eager module would be added (add,
   * markUnavailable or a problem). Modules of one name load in the order they were deferred, and
   * before any module of that name added later, so the order of sources holds as when all load
   * at once.
   */
  defer(kind: PluginKind, name: string, load: () => void): void {
    const byName = this.of(this.pending, kind);
    byName.set(name, [...(byName.get(name) ?? []), load]);
  }

  /** Loads the deferred modules of `name` in `kind` (every kind when undefined; every name when `name` is undefined). */
  private settle(kind: PluginKind | undefined, name?: string): void {
    if (this.pending.size === 0) return;
    // The common case, a lookup by kind and name (each job's function): one map read.
    if (kind !== undefined && name !== undefined && !this.pending.get(kind)?.has(name)) return;
    const problemsBefore = this.problems.length;
    const names: [PluginKind, string][] = [];
    for (const [k, byName] of this.pending) {
      if (kind !== undefined && k !== kind) continue;
      for (const [n, loads] of name === undefined ? [...byName] : [[name, byName.get(name)] as const]) {
        if (loads === undefined) continue;
        byName.delete(n);
        names.push([k, n]);
        for (const load of loads) load();
      }
      if (byName.size === 0) this.pending.delete(k);
    }
    if (names.length === 0 || !this.onSettled) return;
    const unavailable = names
      .filter(([k, n]) => this.unavailableReasons.get(k)?.has(n))
      .map(([k, n]) => [n, this.unavailableReasons.get(k)?.get(n), k] as const);
    this.onSettled(this.problems.slice(problemsBefore), unavailable);
  }

  /** Loads every deferred module (for what must see them all: problems, sys.missing_modules). */
  settleAll(): void {
    this.settle(undefined);
  }

  /** Register an available module; a module of the same kind and name loaded earlier is replaced. */
  add(descriptor: ModuleDescriptor, origin: PluginOrigin): void {
    const { kind, name } = descriptor;
    this.settle(kind, name);
    const previous = this.of(this.modules, kind).get(name);
    if (previous) this.overrides.push({ module: name, replaced: previous.origin, by: origin, kind });
    this.of(this.modules, kind).set(name, { descriptor, origin });
    this.of(this.unavailableReasons, kind).delete(name);
  }

  /** Record a module that declared itself unavailable (kept only if no available one has the name). */
  markUnavailable(name: string, reason: string | undefined, kind: PluginKind = 'execution'): void {
    this.settle(kind, name);
    if (!this.of(this.modules, kind).has(name)) this.of(this.unavailableReasons, kind).set(name, reason);
  }

  module(name: string, kind: PluginKind = 'execution'): LoadedModule | undefined {
    this.settle(kind, name);
    return this.modules.get(kind)?.get(name);
  }

  /** Names of available modules of a kind, sorted. */
  moduleNames(kind: PluginKind = 'execution'): string[] {
    this.settle(kind);
    return sorted(this.modules.get(kind)?.keys() ?? []);
  }

  /** Unavailable modules of a kind and their reasons (`loadedOnly`: among those loaded so far, deferred ones left as they are). */
  unavailable(kind: PluginKind = 'execution', loadedOnly = false): ReadonlyMap<string, string | undefined> {
    if (!loadedOnly) this.settle(kind);
    return this.of(this.unavailableReasons, kind);
  }

  /** Every `mod.fn` of a kind, sorted. */
  functionNames(kind: PluginKind = 'execution'): string[] {
    this.settle(kind);
    const names: string[] = [];
    for (const [mod, { descriptor }] of this.modules.get(kind) ?? [])
      for (const fn of descriptor.functions.keys()) names.push(`${mod}.${fn}`);
    return names.sort();
  }

  find(fun: string, kind: PluginKind = 'execution'): { module: LoadedModule; fn: FnDescriptor } | undefined {
    const dot = fun.indexOf('.');
    if (dot <= 0) return undefined;
    const module = this.module(fun.slice(0, dot), kind);
    const fn = module?.descriptor.functions.get(fun.slice(dot + 1));
    return module && fn ? { module, fn } : undefined;
  }

  /** Why module `mod` failed to load, as `sys.missing_modules` says it, or undefined. */
  loadFailure(mod: string): string | undefined {
    this.settle(undefined, mod);
    const problem = this.problems.find((p) => problemKey(p) === mod);
    return problem ? `failed to load from ${problem.origin}: ${problem.error.message}` : undefined;
  }

  /** The error for a function that is not there, with the module's `__virtual__` reason if any. */
  missingError(fun: string, kind: PluginKind = 'execution'): FunctionNotFoundError | ModuleUnavailableError {
    const mod = fun.split('.')[0];
    const reasons = this.of(this.unavailableReasons, kind);
    if (!this.module(mod, kind) && reasons.has(mod)) return new ModuleUnavailableError(mod, reasons.get(mod));
    const failure = this.loadFailure(mod);
    return new FunctionNotFoundError(fun, failure ? { hint: failure } : {});
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
