/**
 * The one file that reads and writes plugin metadata (tsyringe's lesson: a single owner of all
 * metadata access). Decorators call the `record*` functions; the loader calls the `read*` ones.
 */
import type { ArgSchema } from './args';

/**
 * What a plugin class is, as Salt's loader types are: execution modules (`salt`, `salt-call`),
 * state modules, runners (`salt-run`), wheel modules, returners, renderers and ext_pillar sources.
 */
export type PluginKind = 'execution' | 'state' | 'runner' | 'wheel' | 'returner' | 'renderer' | 'ext_pillar';

/** What `@Module` (and the other class decorators of ./kinds.ts) records. */
export interface ModuleMetadata {
  kind: PluginKind;
  name: string;
  doc?: string;
  available?: (grains: Record<string, unknown>) => true | string | false;
  /** The file Salt defines the module in, when it is not its name (see ModuleOptions.file). */
  file?: string;
}

/**
 * How the host calls a marked method: `fn` = Salt's arguments bound to the schema (`@Fn`);
 * `state` = the arguments, then a state context (`@State`); `render` = (input, context)
 * (`@Render`); `pillar` = the configured arguments, then a pillar context (`@Pillar`).
 */
export type FnContract = 'fn' | 'state' | 'render' | 'pillar';

/** Structured documentation of a function; `sys.doc` renders it as Salt prints docstrings. */
export interface FnDocs {
  /** One line: what the function does. */
  summary?: string;
  /** More paragraphs (separated by blank lines). */
  description?: string;
  /** Command lines, shown under "CLI Example:". */
  examples?: readonly string[];
}

/** What `@Fn` records for one method. */
export interface FnMetadata extends FnDocs {
  /** The method's property name on the prototype. */
  method: string;
  /** Which decorator marked it; absent = `fn`. */
  contract?: FnContract;
  /** The public name (`test.true` from method `true_`); defaults to the method name. */
  name?: string;
  /** The declared arguments; absent = read the parameters from the method's source (plain JS). */
  args?: ArgSchema;
  /** Python's `*args`: the key of the call object that receives extra positional values. */
  varargs?: string;
  /**
   * Python's `**kwargs`: with a schema, the key of the call object that receives the other
   * keyword arguments and Salt's `__pub_*` data; without one, which parameter is the options
   * object (`true` = the last one, a string = by name).
   */
  kwargs?: boolean | string;
  /** The outputter for this function's return (Salt's `__outputter__`). */
  outputter?: string;
}

/** What `@GrainsProvider` records. */
export interface GrainsProviderMetadata {
  name: string;
}

/** One constructor parameter's service, as `@inject` records it. */
export interface InjectionToken {
  index: number;
  token: symbol;
  optional: boolean;
}

type AnyClass = abstract new (...args: never[]) => unknown;

// Keys from the global symbol registry, stored as own properties of the class (or prototype): a
// plugin that brings its own copy of brine/plugin records metadata the host's copy reads.
const MODULE_KEY = Symbol.for('brine.plugin.module');
const FNS_KEY = Symbol.for('brine.plugin.functions');
const GRAINS_KEY = Symbol.for('brine.plugin.grains-provider');
const INJECT_KEY = Symbol.for('brine.plugin.inject');

function own<T>(target: object, key: symbol): T | undefined {
  return Object.prototype.hasOwnProperty.call(target, key) ? ((target as Record<symbol, unknown>)[key] as T) : undefined;
}

function define(target: object, key: symbol, value: unknown): void {
  Object.defineProperty(target, key, { value, configurable: true, enumerable: false, writable: false });
}

export function recordModule(target: AnyClass, meta: ModuleMetadata): void {
  define(target, MODULE_KEY, meta);
}

export function readModule(target: unknown): ModuleMetadata | undefined {
  if (typeof target !== 'function') return undefined;
  return own<ModuleMetadata>(target, MODULE_KEY);
}

export function recordFn(prototype: object, meta: FnMetadata): void {
  const existing = own<FnMetadata[]>(prototype, FNS_KEY) ?? [];
  define(prototype, FNS_KEY, [...existing.filter((m) => m.method !== meta.method), meta]);
}

/** The `@Fn` records of a class, own methods and inherited ones (a subclass wins on a clash). */
export function readFns(target: AnyClass): FnMetadata[] {
  const byMethod = new Map<string, FnMetadata>();
  const chain: object[] = [];
  for (let p = target.prototype as object | null; p && p !== Object.prototype; p = Object.getPrototypeOf(p)) {
    chain.unshift(p);
  }
  for (const proto of chain) {
    for (const meta of own<FnMetadata[]>(proto, FNS_KEY) ?? []) byMethod.set(meta.method, meta);
  }
  return [...byMethod.values()];
}

export function recordGrainsProvider(target: AnyClass, meta: GrainsProviderMetadata): void {
  define(target, GRAINS_KEY, meta);
}

export function readGrainsProvider(target: unknown): GrainsProviderMetadata | undefined {
  if (typeof target !== 'function') return undefined;
  return own<GrainsProviderMetadata>(target, GRAINS_KEY);
}

export function recordInjection(target: object, token: InjectionToken): void {
  const existing = own<InjectionToken[]>(target, INJECT_KEY) ?? [];
  define(target, INJECT_KEY, [...existing.filter((t) => t.index !== token.index), token]);
}

/** The services named by `@inject(...)` on the constructor's parameters, by index. */
export function readInjectionTokens(target: AnyClass): InjectionToken[] {
  return [...(own<InjectionToken[]>(target, INJECT_KEY) ?? [])].sort((a, b) => a.index - b.index);
}
