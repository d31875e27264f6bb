/**
 * State modules (the state counterpart of `@Module`): a class naming its state module and its
 * functions' required parameters; each function receives the state's arguments and a
 * {@link StateContext}, and returns Salt's `{name, changes, result, comment}`.
 *
 * @example
 * export class HelloStates {
 *   static readonly stateModule = 'hello';
 *   static readonly functions = { present: ['name'] };
 *   async present(args: { name: string }, ctx: StateContext): Promise<StateReturn> {
 *     return { name: args.name, changes: {}, result: ctx.test ? null : true, comment: 'hello' };
 *   }
 * }
 */
import type { StateResult } from '../../core/state/types';

export type StateReturn = StateResult;

export interface StateContext {
  /** Test mode: predict, change nothing. */
  test: boolean;
  /** The low chunk (`__reqs__`, `sfun` for mod_watch). */
  low: Readonly<Record<string, unknown>>;
  /** Results so far, by state tag. */
  running: Readonly<Record<string, StateReturn>>;
  saltenv: string;
  /** A `salt://` (or local) file fetched to a local path, or null when it does not exist. */
  cacheFile(source: string): Promise<string | null>;
  /**
   * Render a Jinja template file to text (`template: jinja`), with grains, pillar and opts of the
   * run plus `context`. `name` is the file's `salt://` path (for relative imports).
   */
  renderTemplate(path: string, name: string, context?: Record<string, unknown>): Promise<string>;
}

/** What a state module class declares statically. */
export interface StateModuleClass {
  readonly stateModule: string;
  /** Function name -> required parameter names (Salt's "Missing parameter X for state m.f"). */
  readonly functions: Record<string, readonly string[]>;
  new (...args: never[]): object;
}

/** Salt's `__virtual__` equivalent of a state module is not needed yet; availability is per function. */
export const STATE_CHANGES_TESTING = { testing: { old: 'Unchanged', new: 'Something pretended to change' } };

/** How a state run was asked for (`state.apply ... test=True saltenv=dev pillar='{...}'`). */
export interface StateRunOptions {
  test?: boolean;
  saltenv?: string;
  pillar?: Record<string, unknown>;
  exclude?: unknown;
  /** How templates reach execution functions (`salt['cmd.run'](...)`): the job's ISalt. */
  caller?: { call(fun: string, args?: readonly unknown[], kwargs?: Record<string, unknown>): Promise<unknown>; has(fun: string): boolean };
}

/** Results by state tag, or Salt's list of compile errors. */
export type StateRunReturn = Record<string, StateReturn> | string[];

/**
 * The minion's state system, for the `state` execution module: the functions of Salt's
 * `state` module with their return shapes, and the retcode Salt would set.
 */
export interface IStates {
  sls(mods: string[], opts: StateRunOptions): Promise<StateRunReturn>;
  highstate(opts: StateRunOptions): Promise<StateRunReturn>;
  single(fun: string, name: string, kwargs: Record<string, unknown>, opts: StateRunOptions): Promise<StateRunReturn>;
  slsId(id: string, mods: string[], opts: StateRunOptions): Promise<StateRunReturn>;
  showSls(mods: string[], opts: StateRunOptions): Promise<unknown>;
  showLowSls(mods: string[], opts: StateRunOptions): Promise<unknown>;
  showTop(opts: StateRunOptions): Promise<unknown>;
  showHighstate(opts: StateRunOptions): Promise<unknown>;
  showLowstate(opts: StateRunOptions): Promise<unknown>;
  /** Salt's _set_retcode for a run's return: 0, 1 (compile errors) or 2 (a state failed). */
  retcode(ret: StateRunReturn): number;
  /** The minion's `test` option (state runs default to test mode when it is true). */
  defaultTest(): boolean;
}
export const IStates: unique symbol = Symbol('IStates');
