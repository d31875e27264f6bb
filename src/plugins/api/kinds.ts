/**
 * The plugin kinds besides execution modules, as Salt's loader has them. Each is a class
 * decorator naming the module and a method decorator marking what the host calls; both only
 * record metadata, and the loader lists them without running the plugin.
 *
 * - functions called as `mod.fn` with Salt's arguments use `@Fn`: execution modules (`@Module`),
 *   runners (`@Runner`), wheel modules (`@Wheel`), returners (`@Returner`, functions named as
 *   Salt's: `returner`, `save_load`, `get_load`, `event_return`, ...);
 * - state modules (`@StateModule`) mark their state functions with `@State`;
 * - renderers (`@Renderer`) mark their one render function with `@Render`;
 * - ext_pillar sources (`@ExtPillar`) mark their one pillar function with `@Pillar`.
 */
import type { ArgSchema } from './args';
import { markFunction, moduleDecorator, type CallArgs, type FnOptions, type ModuleOptions } from './decorators';
import type { FnDocs } from './metadata';

/**
 * What a state function returns: Salt's state return (`result` null = "would change" in test
 * mode).
 */
export interface StateReturn {
  name: string;
  result: boolean | null;
  changes: Record<string, unknown>;
  comment: string | string[];
  [other: string]: unknown;
}

/** What a state function gets besides its arguments. */
export interface StateContext {
  /** Salt's `__opts__['test']`: report what would change, change nothing. */
  readonly test: boolean;
  /** The state's ID declaration, SLS and saltenv, when the state runner knows them. */
  readonly id?: string;
  readonly sls?: string;
  readonly saltenv?: string;
  /**
   * From the state runner: the low chunk being run (`__reqs__` and `sfun` when it calls
   * `mod_watch`) and the results of the states run so far, by state tag.
   */
  readonly low?: Readonly<Record<string, unknown>>;
  readonly running?: Readonly<Record<string, StateReturn>>;
  /** From the state runner: a `salt://` (or local) file fetched to a local path, or null when it does not exist. */
  cacheFile?(source: string): Promise<string | null>;
  /**
   * From the state runner: a Jinja template file rendered to text (`template: jinja`) with the
   * run's grains, pillar and opts plus `context`; `name` is its `salt://` path (relative imports).
   */
  renderTemplate?(path: string, name: string, context?: Record<string, unknown>): Promise<string>;
  /** From the state runner: the files under a `salt://` directory, as paths from the saltenv's root (`cp.list_master`). */
  listFiles?(source: string): Promise<string[]>;
  /** From the state runner: the run's pillar (Salt's `__pillar__`, `pillar=` overrides included). */
  readonly pillar?: Readonly<Record<string, unknown>>;
}

/** What a renderer gets besides its input (the file's text, or the previous renderer's data). */
export interface RendererContext {
  /** The file's name inside the roots (`webserver/init.sls`), its SLS and saltenv. */
  readonly name: string;
  readonly sls: string;
  readonly saltenv: string;
  /** The file's path on disk, when it has one. */
  readonly path?: string;
  /** Template variables (grains, pillar, opts, saltenv, sls, ...). */
  readonly context: Record<string, unknown>;
  /** Text after the renderer's name in the shebang (`#!yaml strict` → `strict`). */
  readonly argline: string;
}

/** What an ext_pillar source gets besides its configured arguments. */
export interface PillarContext {
  readonly minionId: string;
  readonly grains: Record<string, unknown>;
  /** The pillar compiled so far (Salt's `pillar` argument). */
  readonly pillar: Record<string, unknown>;
  /** The master configuration. */
  readonly opts: Record<string, unknown>;
}

type Awaitable<T> = T | Promise<T>;

/** A method decorator checking the method's signature at compile time. */
export type ContractDecorator<M> = <T extends M>(
  prototype: object,
  propertyKey: string | symbol,
  descriptor: TypedPropertyDescriptor<T>,
) => void;

/** Options of {@link State}. */
export interface StateOptions<S extends ArgSchema, V extends boolean | string, K extends boolean | string> extends FnOptions<S, V, K> {
  /**
   * This is the module's `mod_watch`: what the state runner calls when a `watch`ed state changed
   * (`service.running` restarts the service). Its public name is `mod_watch`.
   */
  modWatch?: boolean;
}

/**
 * Marks a class as the state module `name` (`pkg`, `service`, ...).
 *
 * @example
 * @StateModule('motd', { available: (g) => g.kernel === 'Linux' || 'motd needs Linux' })
 * export class MotdState { ... }
 */
export function StateModule(name: string, options: ModuleOptions = {}): ClassDecorator {
  return moduleDecorator('state', '@StateModule', name, options);
}

/**
 * Marks a state function (`motd.present`). It receives its arguments (`name` first, as every
 * Salt state) and a {@link StateContext}; in test mode it changes nothing and answers `result:
 * null` with what it would do.
 *
 * @example
 * @State({ summary: 'Make the motd say text', args: { name: arg.string(), text: arg.string() } })
 * async present({ name, text }: { name: string; text: string }, ctx: StateContext): Promise<StateReturn> {
 *   if (ctx.test) return { name, result: null, changes: { text }, comment: 'would write the motd' };
 *   ...
 * }
 *
 * @State({ modWatch: true, args: { name: arg.string(), sfun: arg.string({ optional: true }) }, kwargs: true })
 * mod_watch(...) { ... }   // what `watch` triggers
 */
export function State<const S extends ArgSchema, const V extends boolean | string = false, const K extends boolean | string = false>(
  options: StateOptions<S, V, K> & { args: S },
): ContractDecorator<(args: CallArgs<S, V, K>, ctx: StateContext) => Awaitable<StateReturn>> {
  const { modWatch, ...fn } = options;
  return markFunction('state', '@State', modWatch ? { ...fn, name: 'mod_watch' } : fn) as never;
}

/**
 * Marks a class as the runner module `name`, run on the master by `salt-run name.fn`. Its
 * functions are `@Fn` methods.
 *
 * @example
 * @Runner('inventory')
 * export class InventoryRunner {
 *   @Fn({ summary: 'Count minions', examples: ['salt-run inventory.count'] })
 *   count(): number { ... }
 * }
 */
export function Runner(name: string, options: ModuleOptions = {}): ClassDecorator {
  return moduleDecorator('runner', '@Runner', name, options);
}

/**
 * Marks a class as the wheel module `name` (master-side management, `wheel.key.list_all` over
 * salt-api). Its functions are `@Fn` methods.
 *
 * @example
 * @Wheel('notes')
 * export class NotesWheel { @Fn({ summary: 'List notes' }) list(): string[] { ... } }
 */
export function Wheel(name: string, options: ModuleOptions = {}): ClassDecorator {
  return moduleDecorator('wheel', '@Wheel', name, options);
}

/**
 * Marks a class as the returner `name` (`--return name`, `return: name` in the config). Its
 * functions are `@Fn` methods named as Salt calls them: `returner` (one job return),
 * `save_load`, `get_load`, `get_jid`, `event_return`, ...
 *
 * @example
 * @Returner('logfile')
 * export class LogfileReturner {
 *   @Fn({ summary: 'Write one return', args: { ret: arg.dict() } })
 *   async returner({ ret }: { ret: Record<string, unknown> }): Promise<void> { ... }
 * }
 */
export function Returner(name: string, options: ModuleOptions = {}): ClassDecorator {
  return moduleDecorator('returner', '@Returner', name, options);
}

/**
 * Marks a class as the renderer `name`, used in a shebang (`#!toml`, `#!jinja|yaml`). Its one
 * `@Render` method does the work.
 *
 * @example
 * @Renderer('upper')
 * export class UpperRenderer {
 *   @Render({ summary: 'Upper-case the text' })
 *   render(input: unknown): string { return String(input).toUpperCase(); }
 * }
 */
export function Renderer(name: string, options: ModuleOptions = {}): ClassDecorator {
  return moduleDecorator('renderer', '@Renderer', name, options);
}

/**
 * Marks a renderer's render function: (the file's text, or the data the renderer before it
 * produced; the {@link RendererContext}) → text or data.
 */
export function Render(options: FnDocs = {}): ContractDecorator<(input: unknown, ctx: RendererContext) => unknown> {
  return markFunction('render', '@Render', options) as never;
}

/**
 * Marks a class as the ext_pillar source `name` (`ext_pillar: [{name: args}]` in the master
 * config). Its one `@Pillar` method returns the data to merge into the minion's pillar.
 *
 * @example
 * @ExtPillar('static_roles')
 * export class StaticRoles {
 *   @Pillar({ args: { roles: arg.dict() } })
 *   pillar({ roles }: { roles: Record<string, unknown> }, ctx: PillarContext) {
 *     return { role: roles[ctx.minionId] ?? 'none' };
 *   }
 * }
 */
export function ExtPillar(name: string, options: ModuleOptions = {}): ClassDecorator {
  return moduleDecorator('ext_pillar', '@ExtPillar', name, options);
}

/**
 * Marks an ext_pillar source's pillar function. The configured arguments bind as Salt's do: a
 * map as keyword arguments, a list as positional ones, anything else as the one positional value.
 */
export function Pillar<const S extends ArgSchema, const V extends boolean | string = false, const K extends boolean | string = false>(
  options: FnOptions<S, V, K> & { args: S },
): ContractDecorator<(args: CallArgs<S, V, K>, ctx: PillarContext) => Awaitable<Record<string, unknown>>> {
  return markFunction('pillar', '@Pillar', options) as never;
}
