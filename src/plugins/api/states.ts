/**
 * The state system as the `state` execution module sees it (IStates). State modules themselves
 * are `@StateModule` classes (./kinds.ts).
 */
import type { StateContext, StateReturn } from './kinds';

export type { StateContext, StateReturn };

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
  /**
   * Renders a local template file with Salt's Jinja (the run's grains, `opts.pillar`, `salt[...]`
   * through `opts.caller`, and `context` as extra variables), as `cp.get_template` and
   * `file.managed template: jinja` do; `name` is the path shown in errors.
   */
  renderTemplate(path: string, name: string, opts: StateRunOptions, context?: Record<string, unknown>): Promise<string>;
}
export const IStates: unique symbol = Symbol.for('brine.IStates');
