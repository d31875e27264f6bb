import { existsSync, statSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { CommandExecutionError, InvocationError } from './api/errors';
import type { ExtensionForm, IMinionControl, RunningJob, SyncOptions } from './api/control';
import { Executor, type JobRequest, type JobResult } from './executor';
import type { PluginKind } from './api/metadata';
import { findPluginPackages } from './loader/discovery';
import { forgetPluginFiles } from './loader/host-require';
import { PluginLoader, type LoadedPlugins, type PluginLoaderOptions } from './loader/loader';
import type { LoadProblem } from './loader/registry';
import { EXTENSION_FORMS, extensionModulesDir, syncExtensions, type MasterFiles } from './services/extension-sync';
import { GrainsStore } from './services/grains-store';
import { cleanSaltPath, FileCache } from '../core/minion/file-cache';
import { PROC_RECORD_DELAY_MS, ProcDir, recordAtOnce } from '../core/minion/proc-dir';
import { findCachedJob } from '../core/minion/cached-jobs';

/** What {@link PluginRuntime.start} needs: the loader's options plus the master's files. */
export interface PluginRuntimeOptions extends Omit<PluginLoaderOptions, 'control'> {
  /** The master's file server (for `saltutil.sync_*`); absent for `salt-call --local`. */
  files?: MasterFiles;
}

interface Tracked {
  data: RunningJob;
  abort: AbortController;
  /** Settles when the job ends. */
  done: Promise<void>;
}

function asStringList(v: unknown): string[] {
  if (typeof v === 'string') return [v];
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

function isDict(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/**
 * The returners of a job, as Salt's minion joins them: the publication's `ret` (comma
 * separated) then the minion's `return:` option (a string or a list), each once.
 */
export function returnerNames(jobRet: unknown, configReturn: unknown): string[] {
  const split = (v: unknown): string[] =>
    typeof v === 'string' ? v.split(',') : Array.isArray(v) ? v.flatMap((x) => (typeof x === 'string' ? x.split(',') : [])) : [];
  return [...new Set([...split(jobRet), ...split(configReturn)].map((n) => n.trim()).filter((n) => n !== ''))];
}

function isDir(path: string): boolean {
  return existsSync(path) && statSync(path).isDirectory();
}

/**
 * The minion's plugin side in one object: loads the plugins, runs jobs through an
 * {@link Executor} while tracking them (Salt's `proc/<jid>` records), and is the
 * {@link IMinionControl} that `saltutil` and `sys` use: running jobs, kill, module reload,
 * grains refresh, sync of `_modules`/`_grains` from the master.
 *
 * Module directories are the configured ones (`moduleDirs`, else the config's `module_dirs`)
 * plus `<extension_modules>/modules` and `<extension_modules>/grains` once they exist.
 *
 * @example
 * const runtime = await PluginRuntime.start({ config, logger, builtins: BUILTIN_PLUGINS, files: fileClient });
 * const result = await runtime.run({ fun: 'test.ping', arg: [], jid }); // { return: true, retcode: 0, success: true }
 */
export class PluginRuntime implements IMinionControl {
  private readonly jobs = new Map<string, Tracked>();
  private executor!: Executor;
  private readonly grainsListeners = new Set<() => void>();
  private unsubscribeGrains?: () => void;
  /** `<cachedir>/proc`: this process's jobs for the others on the machine, and theirs for it (none without a cachedir). */
  private readonly proc: ProcDir | undefined;
  /** The jids of this process's running jobs whose proc files are written. */
  private readonly recorded = new Set<string>();

  private constructor(private readonly options: PluginRuntimeOptions) {
    const cachedir = String(options.config.get('cachedir', '') ?? '');
    this.proc = cachedir ? new ProcDir(join(cachedir, 'proc')) : undefined;
  }

  static async start(options: PluginRuntimeOptions): Promise<PluginRuntime> {
    const runtime = new PluginRuntime(options);
    runtime.executor = new Executor(await runtime.loadPlugins(), options.logger);
    runtime.followGrains();
    return runtime;
  }

  /** The plugins new jobs run against. */
  get plugins(): LoadedPlugins {
    return this.executor.current;
  }

  /** The current grains (after a reload or refresh, the new ones). */
  grains(): Record<string, unknown> {
    return this.plugins.grains.all();
  }

  /**
   * Calls `listener` whenever the grains change: a refresh, a module writing static grains, or a
   * module reload (new grains providers). Returns the unsubscribe function.
   */
  onGrainsChange(listener: () => void): () => void {
    this.grainsListeners.add(listener);
    return () => this.grainsListeners.delete(listener);
  }

  /** Follows the current plugins' grains store (the reloaded one after a reload). */
  private followGrains(): void {
    this.unsubscribeGrains?.();
    const { grains } = this.plugins;
    // Grains handed in as they are (tests, salt-call --local) never change behind our back.
    this.unsubscribeGrains = grains instanceof GrainsStore ? grains.onChange(() => this.grainsChanged()) : undefined;
  }

  private grainsChanged(): void {
    for (const listener of [...this.grainsListeners]) listener();
  }

  /**
   * Run one job and track it while it runs. `load` is the publication as received (Salt's
   * running-job data is `{pid, ...load}`); without it the job's fields are used in Salt's order.
   * `signal` aborts the job from outside (minion shutdown).
   */
  async run(job: JobRequest, load?: Record<string, unknown>, signal?: AbortSignal): Promise<JobResult> {
    const abort = new AbortController();
    const data: RunningJob = {
      pid: process.pid,
      ...(load ?? {
        fun: job.fun,
        arg: [...(job.arg ?? [])],
        tgt: job.tgt ?? '',
        jid: job.jid,
        ret: job.ret ?? '',
        tgt_type: job.tgtType ?? 'glob',
        user: job.user ?? 'root',
      }),
    } as RunningJob;
    const onOuterAbort = (): void => abort.abort(signal?.reason);
    signal?.addEventListener('abort', onOuterAbort, { once: true });
    if (signal?.aborted) abort.abort(signal.reason);
    // Two publications of one jid (a retry) share the record; the later one wins until it ends.
    let finished!: () => void;
    const tracked: Tracked = { data, abort, done: new Promise<void>((resolve) => (finished = resolve)) };
    this.jobs.set(job.jid, tracked);
    // This process knows its own jobs (runningJobs, find_job); the file is for the others on the
    // machine. A job they act on at once (a state run: one at a time across processes) is
    // recorded before it starts; any other once it has run for PROC_RECORD_DELAY_MS, so the
    // jobs that end sooner (test.ping, most calls) cost no file.
    const record = (): void => {
      if (this.jobs.get(job.jid) !== tracked) return;
      this.writeProc(data);
      this.recorded.add(job.jid);
    };
    let timer: NodeJS.Timeout | undefined;
    if (recordAtOnce(data.fun)) record();
    else timer = setTimeout(record, PROC_RECORD_DELAY_MS).unref();
    try {
      // The signal is made only if the job asks for it (an AbortController makes it lazily too).
      return await this.executor.run(job, { signal: () => abort.signal });
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onOuterAbort);
      if (this.jobs.get(job.jid) === tracked) {
        this.jobs.delete(job.jid);
        // An earlier run of the same jid may have left the file: it goes with the last one.
        if (this.recorded.delete(job.jid)) this.removeProc(job.jid);
      }
      finished();
    }
  }

  /** `salt['mod.fun'](...)` for templates rendered on this minion: errors are thrown as they are. */
  callFunction(fun: string, args: readonly unknown[] = [], kwargs: Record<string, unknown> = {}): Promise<unknown> {
    return this.executor.callFunction(fun, args, kwargs);
  }

  hasFunction(fun: string): boolean {
    return this.executor.hasFunction(fun);
  }

  /**
   * Sends a finished job's return to the returners it names (`--return a,b`) and those of the
   * minion's `return:` option, as Salt's minion does after returning to the master: each
   * returner is the `returner(ret)` function of the `@Returner(name)` plugin. An unknown returner, or one that fails, is
   * an error in the minion's log with Salt's words; the job's own return is not affected.
   */
  async sendToReturners(job: JobRequest, result: JobResult): Promise<void> {
    const names = returnerNames(job.ret, this.options.config.get<unknown>('return', undefined));
    if (names.length === 0) return;
    const log = this.options.logger;
    const ret = {
      id: String(this.options.config.get('id', '')),
      jid: job.jid,
      fun: job.fun,
      fun_args: [...(job.arg ?? [])],
      return: result.return,
      retcode: result.retcode,
      success: result.success,
      ...(result.out === undefined ? {} : { out: result.out }),
      // As Salt's minion: the publication's metadata goes with the return when it is a dict.
      ...(isDict(job.metadata) ? { metadata: job.metadata } : {}),
    };
    for (const name of names) {
      const fun = `${name}.returner`;
      if (!this.plugins.registry.find(fun, 'returner')) {
        log?.error('Returner %s could not be loaded: %s', fun, `'${fun}' is not available.`);
        continue;
      }
      try {
        await this.invoke('returner', fun, { arg: [ret] }, job);
      } catch (err) {
        log?.error('The return failed for job %s: %s', job.jid, (err as Error)?.message ?? String(err));
      }
    }
  }

  /** A function of any plugin kind (state, renderer, ext_pillar, runner, ...): {@link Executor.invoke}. */
  invoke(kind: PluginKind, fun: string, call: { arg?: readonly unknown[]; extra?: readonly unknown[] }, job: JobRequest): Promise<unknown> {
    return this.executor.invoke(kind, fun, call, job);
  }

  /** Salt's proc file of a job; a cache that cannot be written costs only the cross-process view, never the job. */
  private writeProc(data: RunningJob): void {
    try {
      this.proc?.write(data);
    } catch (err) {
      this.options.logger?.warning(`Could not record job ${data.jid} in ${this.proc!.dir}: ${(err as Error).message}`);
    }
  }

  /** A job's record goes when it ends; a folder turned unwritable meanwhile costs a warning, not the job's result. */
  private removeProc(jid: string): void {
    try {
      this.proc?.remove(jid);
    } catch (err) {
      this.options.logger?.warning(`Could not remove the record of job ${jid} from ${this.proc!.dir}: ${(err as Error).message}`);
    }
  }

  /** The jobs other processes on the machine recorded in the proc dir (salt-call, the daemon), then this process's own, oldest first. */
  runningJobs(): RunningJob[] {
    const own = [...this.jobs.values()].map((t) => structuredClone(t.data));
    const others = (this.proc?.others() ?? []).filter((r) => !this.jobs.has(r.jid)) as RunningJob[];
    return [...others.sort((a, b) => (a.jid < b.jid ? -1 : a.jid > b.jid ? 1 : 0)), ...own];
  }

  async jobFinished(jid: string, signal?: AbortSignal): Promise<void> {
    // A retry of the jid replaces the record: wait until no record of it is left.
    for (let tracked = this.jobs.get(jid); tracked; tracked = this.jobs.get(jid)) await tracked.done;
    await this.proc?.gone(jid, signal);
  }

  findCachedJob(jid: string): Record<string, unknown> | null | string {
    const cachedir = String(this.options.config.get('cachedir', '') ?? '');
    if (!cachedir) throw new CommandExecutionError('The minion config gives no cachedir: there is no job cache to read');
    return findCachedJob(cachedir, jid, this.options.config.get<unknown>('cache_jobs', false) === true);
  }

  killJob(jid: string): RunningJob | undefined {
    const tracked = this.jobs.get(jid);
    if (!tracked) return undefined;
    tracked.abort.abort(new Error(`job ${jid} killed`));
    return structuredClone(tracked.data);
  }

  async reloadModules(): Promise<void> {
    // Plugin packages are read again too, so an upgraded package takes effect without a restart.
    const packages = this.options.npm ? [...findPluginPackages(this.options.npm).values()] : [];
    forgetPluginFiles([...this.moduleDirs(), ...packages]);
    this.executor.replacePlugins(await this.loadPlugins());
    this.followGrains();
    this.grainsChanged();
  }

  async refreshGrains(): Promise<void> {
    await this.plugins.refreshGrains();
  }

  async syncExtensions(
    form: ExtensionForm,
    saltenvs: string[],
    options: SyncOptions = {},
  ): Promise<{ changed: string[]; touched: boolean }> {
    if (!this.options.files) {
      throw new CommandExecutionError('No master to sync from: this minion runs without a master connection (file_client local)');
    }
    const { config } = this.options;
    return syncExtensions(
      {
        files: this.options.files,
        extensionModules: extensionModulesDir(config),
        cachedir: String(config.get('cachedir', '')),
        clean: config.get<unknown>('clean_dynamic_modules', true) !== false,
        logger: this.options.logger,
      },
      form,
      saltenvs,
      options,
    );
  }

  async cacheFile(source: string, saltenv: string): Promise<string | null> {
    if (!source.startsWith('salt://')) return isAbsolute(source) && existsSync(source) && statSync(source).isFile() ? source : null;
    let path = source.slice('salt://'.length);
    let env = saltenv;
    const q = path.indexOf('?');
    if (q !== -1) {
      env = new URLSearchParams(path.slice(q + 1)).get('saltenv') ?? env;
      path = path.slice(0, q);
    }
    if (cleanSaltPath(path) === null) throw new InvocationError(`Invalid salt:// path '${source}'`);
    if (!this.options.files) {
      throw new CommandExecutionError(`Cannot fetch ${source}: this minion runs without a master connection (file_client local)`);
    }
    const cachedir = String(this.options.config.get('cachedir', ''));
    if (!cachedir) throw new CommandExecutionError(`Cannot fetch ${source}: the minion config gives no cachedir`);
    return new FileCache(this.options.files, cachedir).cache(env, path);
  }

  /** The configured module dirs plus the extension_modules dirs that exist now. */
  moduleDirs(): string[] {
    const { config } = this.options;
    const base = this.options.moduleDirs ?? asStringList(config.get('module_dirs', []));
    let ext: string[] = [];
    const hasLocation = config.get<unknown>('extension_modules') || config.get<unknown>('cachedir');
    if (hasLocation) {
      const root = extensionModulesDir(config);
      ext = EXTENSION_FORMS.map((form) => join(root, form)).filter(isDir);
    }
    return [...base, ...ext];
  }

  /**
   * Load (or reload) the plugins; what failed or is unavailable goes to the log, each time (for
   * built-ins loaded on first use, when they load).
   */
  private async loadPlugins(): Promise<LoadedPlugins> {
    const plugins = await new PluginLoader({ ...this.options, moduleDirs: this.moduleDirs(), control: this }).load();
    const log = this.options.logger;
    const report = (problems: readonly LoadProblem[], unavailable: Iterable<readonly [string, string | undefined, ...unknown[]]>) => {
      for (const p of problems) {
        log?.warning('%s failed to load: %s', p.module ? `Module '${p.module}' from ${p.origin}` : p.origin, p.error.message);
      }
      for (const [mod, reason] of unavailable) {
        log?.info("Module '%s' is unavailable: __virtual__ returned False%s", mod, reason ? `: ${reason}` : '');
      }
    };
    report(plugins.registry.problems, plugins.registry.unavailable('execution', true));
    plugins.registry.onSettled = (problems, unavailable) =>
      report(
        problems,
        unavailable.filter(([, , kind]) => kind === 'execution'),
      );
    return plugins;
  }
}
