import type { PluginKind } from './metadata';

/**
 * Services about the loader and the minion itself, for modules such as `sys` and `saltutil`.
 * Kept apart from services.ts: ordinary modules never need them.
 */

/**
 * Salt's `salt.utils.args.argspec_report` entry for one function: `args` are the positional
 * parameter names (null when none), `defaults` the default values of the last parameters (null
 * when none), `varargs`/`kwargs` true when the function takes `...rest` / an options object
 * (null otherwise, as Salt prints `None`).
 */
export interface ArgSpec {
  args: string[] | null;
  defaults: unknown[] | null;
  varargs: true | null;
  kwargs: true | null;
}

/** A module or file the loader could not load, with the reason. */
export interface ModuleProblem {
  origin: string;
  /** The name it is listed under: the module's, else the file's base name, else the origin. */
  module: string;
  message: string;
}

/**
 * What the loader loaded for the running job: names, docs, argument specs, where each module came
 * from and why some are missing. A job sees one consistent snapshot even if modules are reloaded
 * while it runs.
 *
 * @example
 * this.modules.functionNames();          // ['cmd.run', ..., 'test.ping']
 * this.modules.unavailable();            // { pkgx: 'pkgx needs Linux' }
 */
export interface IModules {
  /** Available module names of a kind (default: execution modules), sorted. */
  moduleNames(kind?: PluginKind): string[];
  /** Every callable `mod.fn` of a kind (default: execution modules), sorted. */
  functionNames(kind?: PluginKind): string[];
  /** The doc of `mod.fn`, or undefined when there is no such function. */
  doc(fun: string, kind?: PluginKind): string | undefined;
  /** The doc of a module (`@Module({ doc })`), or undefined when it is not loaded. */
  moduleDoc(module: string, kind?: PluginKind): string | undefined;
  /** Salt's argspec of `mod.fn`, or undefined when there is no such function. */
  argspec(fun: string, kind?: PluginKind): ArgSpec | undefined;
  /** Where a loaded module came from: `builtin`, a module file path, or `npm:<package>`. */
  origin(module: string): string | undefined;
  /** Modules that declared themselves unavailable, with their reason (null: none given). */
  unavailable(): Record<string, string | null>;
  /** Files and modules that failed to load. */
  problems(): ModuleProblem[];
  /** Every plugin file found in the module directories, loaded or not. */
  files(): string[];
}
/** Service id of {@link IModules}. @example constructor(@inject(IModules) private readonly modules: IModules) {} */
export const IModules: unique symbol = Symbol.for('brine.IModules');

/**
 * A running job as Salt's minion records it in `proc/<jid>` (and `saltutil.running` shows it):
 * `pid` first, then the publication's data.
 */
export interface RunningJob {
  pid: number;
  jid: string;
  fun: string;
  arg: unknown[];
  tgt: unknown;
  tgt_type: string;
  user: string;
  ret: string;
  [other: string]: unknown;
}

/** Which kind of custom code `saltutil.sync_*` fetches: `_modules`, `_states` or `_grains` of the file roots. */
export type ExtensionForm = 'modules' | 'states' | 'grains';

/** Options of {@link IMinionControl.syncExtensions}, Salt's `extmod_whitelist`/`extmod_blacklist`. */
export interface SyncOptions {
  /** Only these module names (file names without extension) are synced. */
  whitelist?: string[];
  /** These module names are not synced. */
  blacklist?: string[];
}

/**
 * Control of the minion process: its running jobs, module reloads, grains refresh and the sync of
 * custom modules from the master. Provided by the host (the minion, salt-call).
 *
 * @example
 * this.control.runningJobs().find((j) => j.jid === jid) ?? {};
 * await this.control.syncExtensions('modules', ['base']); // { changed: ['modules.hello'], touched: true }
 */
export interface IMinionControl {
  /**
   * The jobs running now on this machine, oldest first: this process's and those other processes
   * recorded in the minion's `<cachedir>/proc` (a salt-call beside the daemon), as Salt's
   * `saltutil.running` reads them.
   */
  runningJobs(): RunningJob[];
  /**
   * Resolves once the job `jid` is no longer running (at once when it is not running now): how
   * `state.apply queue=True` waits for the state runs before it. A job of another process on
   * the machine (a salt-call, the minion daemon) counts until its proc file is gone or its
   * process ended. `signal` ends the wait early (rejects with its reason).
   */
  jobFinished(jid: string, signal?: AbortSignal): Promise<void>;
  /**
   * Salt's `saltutil.find_cached_job`: the return of job `jid` as this minion cached it
   * (`cache_jobs`, `<cachedir>/minion_jobs/<jid>/return.p`), null when the file holds no return,
   * or Salt's text when the cache has no such job.
   */
  findCachedJob(jid: string): Record<string, unknown> | null | string;
  /** Abort a running job (its commands' process groups are killed). The job's data, or undefined when no such job runs. */
  killJob(jid: string): RunningJob | undefined;
  /** Reload every plugin: new and changed module files take effect for the next jobs. */
  reloadModules(): Promise<void>;
  /** Recompute grains (grains providers, static grains file, config). */
  refreshGrains(): Promise<void>;
  /**
   * Fetch `_<form>` from the master's file roots in each saltenv into the minion's
   * extension_modules dir (TypeScript transpiled to JavaScript). `changed` lists
   * `<form>.<name>` for each new or changed file; `touched` is true when anything was written or
   * removed.
   */
  syncExtensions(form: ExtensionForm, saltenvs: string[], options?: SyncOptions): Promise<{ changed: string[]; touched: boolean }>;
  /**
   * Salt's `cp.cache_file`: a `salt://path[?saltenv=x]` fetched from the master into the
   * minion's cache (`<cachedir>/files/<saltenv>/<path>`), or a local path as it is. The local
   * path, or null when there is no such file.
   */
  cacheFile(source: string, saltenv: string): Promise<string | null>;
}
/** Service id of {@link IMinionControl}. @example constructor(@inject(IMinionControl) private readonly control: IMinionControl) {} */
export const IMinionControl: unique symbol = Symbol.for('brine.IMinionControl');
