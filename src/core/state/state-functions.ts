/**
 * What the runner needs from state modules: look a function up, know its required parameters
 * (Salt's verify_data), and call it with the low chunk's arguments and the run's context.
 */
import type { LowChunk, StateResult } from './types';

/** What a state function sees of the run besides its arguments. */
export interface StateCall {
  /** Test mode (`test=True`, or a prereq's look-ahead). */
  test: boolean;
  /** The low chunk being run (with `__reqs__` and `sfun` for mod_watch). */
  low: LowChunk;
  /** Results of the states run so far, by tag. */
  running: Readonly<Record<string, StateResult>>;
  saltenv: string;
  /** Render a Jinja template file (`template: jinja`) with the run's grains and pillar plus `context`. */
  template(path: string, name: string, context: Record<string, unknown>): Promise<string>;
  /** A `salt://` URL (or local absolute path) as a local file: from file_roots, or the master through the minion's cache; null when missing. */
  cacheFile(source: string): Promise<string | null>;
  /** The files under a `salt://` directory, as paths from the saltenv's root (Salt's `cp.list_master` with a prefix). */
  listFiles(source: string): Promise<string[]>;
  /** The run's pillar (Salt's `__pillar__`, `pillar=` overrides included). */
  pillar: Readonly<Record<string, unknown>>;
}

export interface StateFunction {
  /** Parameters without defaults, `name` included when the function takes it. */
  required: readonly string[];
  call(args: Record<string, unknown>, call: StateCall): Promise<StateResult>;
}

export interface StateFunctions {
  /** `mod.fun`, or undefined when there is none. */
  find(fun: string): StateFunction | undefined;
  /** Why `mod.fun` is missing, in Salt's words (`'mod.fun' is not available.`). */
  missingReason(fun: string): string;
}
