/**
 * The one file that reads and writes plugin metadata (tsyringe's lesson: a single owner of all
 * `Reflect` access). Decorators call the `record*` functions; the loader calls the `read*` ones.
 */
import 'reflect-metadata';
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

/** One constructor parameter's service, as tsyringe's `@inject` records it. */
export interface InjectionToken {
  index: number;
  token: unknown;
  optional: boolean;
}

type AnyClass = abstract new (...args: never[]) => unknown;

const MODULE_KEY = 'brine:module';
const FNS_KEY = 'brine:functions';
const GRAINS_KEY = 'brine:grains-provider';
// tsyringe's own key (reflection-helpers.ts INJECTION_TOKEN_METADATA_KEY); read-only here.
const TSYRINGE_TOKENS_KEY = 'injectionTokens';

export function recordModule(target: AnyClass, meta: ModuleMetadata): void {
  Reflect.defineMetadata(MODULE_KEY, meta, target);
}

export function readModule(target: unknown): ModuleMetadata | undefined {
  if (typeof target !== 'function') return undefined;
  return Reflect.getOwnMetadata(MODULE_KEY, target) as ModuleMetadata | undefined;
}

export function recordFn(prototype: object, meta: FnMetadata): void {
  const existing = (Reflect.getOwnMetadata(FNS_KEY, prototype) as FnMetadata[] | undefined) ?? [];
  Reflect.defineMetadata(FNS_KEY, [...existing.filter((m) => m.method !== meta.method), meta], prototype);
}

/** The `@Fn` records of a class, own methods and inherited ones (a subclass wins on a clash). */
export function readFns(target: AnyClass): FnMetadata[] {
  const byMethod = new Map<string, FnMetadata>();
  const chain: object[] = [];
  for (let p = target.prototype as object | null; p && p !== Object.prototype; p = Object.getPrototypeOf(p)) {
    chain.unshift(p);
  }
  for (const proto of chain) {
    for (const meta of (Reflect.getOwnMetadata(FNS_KEY, proto) as FnMetadata[] | undefined) ?? []) {
      byMethod.set(meta.method, meta);
    }
  }
  return [...byMethod.values()];
}

export function recordGrainsProvider(target: AnyClass, meta: GrainsProviderMetadata): void {
  Reflect.defineMetadata(GRAINS_KEY, meta, target);
}

export function readGrainsProvider(target: unknown): GrainsProviderMetadata | undefined {
  if (typeof target !== 'function') return undefined;
  return Reflect.getOwnMetadata(GRAINS_KEY, target) as GrainsProviderMetadata | undefined;
}

/** The services named by `@inject(...)` on the constructor's parameters, by index. */
export function readInjectionTokens(target: AnyClass): InjectionToken[] {
  const raw = (Reflect.getOwnMetadata(TSYRINGE_TOKENS_KEY, target) ?? {}) as Record<string, unknown>;
  return Object.entries(raw)
    .map(([index, entry]) => {
      const e = entry as { token?: unknown; isOptional?: boolean } | undefined;
      const isDescriptor = typeof e === 'object' && e !== null && 'token' in e;
      return {
        index: Number(index),
        token: isDescriptor ? e.token : entry,
        optional: isDescriptor ? e.isOptional === true : false,
      };
    })
    .sort((a, b) => a.index - b.index);
}
