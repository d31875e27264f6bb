import { FunctionNotFoundError } from './api/errors';
import { IJobContext, ISalt, type ILogger } from './api/services';
import { IModules } from './api/control';
import { IStates } from './api/states';
import type { PluginKind } from './api/metadata';
import { ModuleCatalog } from './loader/catalog';
import { bindArguments, type PubData } from './loader/binder';
import type { LoadedPlugins } from './loader/loader';
import { instantiate } from './loader/instantiate';
import type { ModuleRegistry } from './loader/registry';
import { packArgs } from '../core/protocol/salt-args';
import type { JobResult } from '../core/protocol/loads';

/** One job as the minion received it (Salt's publication load). */
export interface JobRequest {
  fun: string;
  arg?: readonly unknown[];
  jid: string;
  user?: string;
  tgt?: unknown;
  tgtType?: string;
  ret?: string;
  /** The publication's `metadata` (`salt --metadata`), returned with the job's return. */
  metadata?: unknown;
}

/** What the minion sends back (the `return`, `retcode`, `success`, `out` of Salt's `_return`). */
export type { JobResult };

/** Salt's `salt.defaults.exitcodes.EX_GENERIC`. */
const EX_GENERIC = 1;

/**
 * A job's abort signal, or what makes it when first asked for: most jobs never look at theirs, and
 * making an AbortSignal cost a simulated minion more CPU than running test.ping (bench profile).
 */
export type JobSignal = AbortSignal | (() => AbortSignal);

/** What {@link IJobContext} promises, filled from the publication. */
class JobContext implements IJobContext {
  retcode = 0;
  readonly jid: string;
  readonly fun: string;
  readonly args: readonly unknown[];
  readonly user: string;
  readonly tgt: unknown;
  readonly tgtType: string;
  readonly ret: string;
  private made?: AbortSignal;
  constructor(
    job: JobRequest,
    private readonly source?: JobSignal,
  ) {
    this.jid = job.jid;
    this.fun = job.fun;
    this.args = job.arg ?? [];
    this.user = job.user ?? '';
    this.tgt = job.tgt ?? '';
    this.tgtType = job.tgtType ?? 'glob';
    this.ret = job.ret ?? '';
  }

  get signal(): AbortSignal {
    const source = this.source;
    this.made ??= source === undefined ? new AbortController().signal : typeof source === 'function' ? source() : source;
    return this.made;
  }
}

function errorText(err: unknown): string {
  if (err instanceof Error) return err.stack ?? `${err.name}: ${err.message}`;
  return String(err);
}

/**
 * Runs jobs against loaded plugins and answers exactly as Salt's minion (`_thread_return`) does:
 * - unknown function: `'mod.fn' is not available.` (or the module's `__virtual__` reason), or,
 *   when functions start with that name, their docs plus that line; retcode 1, success false;
 * - `CommandExecutionError`: `ERROR: <message>`, retcode 1;
 * - `InvocationError`: `ERROR executing '<fun>': <message>`, retcode 1;
 * - `ArgumentError`: `Passed invalid arguments to <fun>: <message>\n<doc>`, retcode 1;
 * - any other error: `The minion function caused an exception: <stack>`, retcode 1;
 * - otherwise the function's value, retcode = what the function set on `IJobContext.retcode`
 *   (1 if it left 0 but returned a map with `result` or `success` false), success = retcode 0.
 * Each job gets a child container holding its `IJobContext`, an `ISalt` for cross-calls and the
 * `IStates` whose state functions run inside the job.
 *
 * @example
 * const res = await new Executor(plugins).run({ fun: 'test.echo', arg: ['hi'], jid: '20240101000000000000' });
 * // { return: 'hi', retcode: 0, success: true }
 */
export class Executor {
  private plugins: LoadedPlugins;

  constructor(
    plugins: LoadedPlugins,
    private readonly logger?: ILogger,
  ) {
    this.plugins = plugins;
  }

  /** The plugins new jobs run against. */
  get current(): LoadedPlugins {
    return this.plugins;
  }

  /**
   * Run the next jobs against freshly loaded plugins (module reload). Jobs already running keep
   * the plugins they started with, cross-calls included.
   */
  replacePlugins(plugins: LoadedPlugins): void {
    this.plugins = plugins;
  }

  async run(job: JobRequest, options: { signal?: JobSignal } = {}): Promise<JobResult> {
    const plugins = this.plugins;
    if (!plugins.registry.find(job.fun)) return this.missing(plugins.registry, job.fun);
    const ctx = new JobContext(job, options.signal);
    // Salt passes the publication's data, in this order, to functions taking **kwargs.
    const pub: PubData = {
      fun: job.fun,
      arg: job.arg ?? [],
      tgt: job.tgt ?? '',
      jid: job.jid,
      ret: job.ret ?? '',
      tgt_type: job.tgtType ?? 'glob',
      user: job.user ?? '',
    };
    try {
      const value = await this.call(plugins, new ModuleCatalog(plugins.registry), ctx, job.fun, job.arg ?? [], pub);
      let retcode = ctx.retcode;
      if (retcode === 0 && isFailedResult(value)) retcode = EX_GENERIC;
      const outputter = plugins.registry.find(job.fun)?.fn.outputter;
      return { return: value, retcode, success: retcode === 0, ...(outputter ? { out: outputter } : {}) };
    } catch (err) {
      return { return: this.describeError(plugins.registry, job.fun, err), retcode: EX_GENERIC, success: false, out: 'nested' };
    }
  }

  /**
   * Call one function outside any published job, its errors thrown as they are (what Jinja's
   * `salt['mod.fun'](...)` does at render time).
   */
  callFunction(fun: string, args: readonly unknown[] = [], kwargs: Record<string, unknown> = {}, signal?: AbortSignal): Promise<unknown> {
    const arg = Object.keys(kwargs).length > 0 ? [...args, { __kwarg__: true, ...kwargs }] : args;
    return this.invoke('execution', fun, { arg }, { fun, arg, jid: 'req' }, { signal });
  }

  /** Whether `fun` exists in the current plugins. */
  hasFunction(fun: string): boolean {
    return this.plugins.registry.find(fun) !== undefined;
  }

  /**
   * Call a function of any plugin kind inside a job, for the parts of the host that run them (the
   * state runner, the renderer pipeline, the pillar compiler, salt-run): Salt's `arg` list is
   * bound to the function's arguments as for a job, then `extra` follows (a state function's
   * {@link StateContext}, an ext_pillar's {@link PillarContext}); a renderer receives `extra` only
   * (its input and {@link RendererContext}). Errors are thrown as they are.
   *
   * @example
   * await executor.invoke('state', 'motd.present', { arg: ['/etc/motd', { __kwarg__: true, text: 'hi' }], extra: [{ test: true }] }, job);
   * await executor.invoke('renderer', 'upper.render', { extra: ['text', renderCtx] }, job);
   */
  async invoke(
    kind: PluginKind,
    fun: string,
    call: { arg?: readonly unknown[]; extra?: readonly unknown[] },
    job: JobRequest,
    options: { signal?: JobSignal } = {},
  ): Promise<unknown> {
    const plugins = this.plugins;
    const ctx = new JobContext(job, options.signal);
    return this.call(plugins, new ModuleCatalog(plugins.registry), ctx, fun, call.arg ?? [], undefined, kind, call.extra ?? []);
  }

  /** Call `fun` inside the job `ctx`; cross-calls through `ISalt` land here too (without `pub`). */
  private async call(
    plugins: LoadedPlugins,
    catalog: ModuleCatalog,
    ctx: JobContext,
    fun: string,
    arg: readonly unknown[],
    pub?: PubData,
    kind: PluginKind = 'execution',
    extra: readonly unknown[] = [],
  ): Promise<unknown> {
    const { registry } = plugins;
    const found = registry.find(fun, kind);
    if (!found) throw registry.missingError(fun, kind);
    const jobContainer = plugins.container.createChild();
    jobContainer.register(IJobContext, ctx);
    const salt: ISalt = {
      call: (f, args = [], kwargs) => this.call(plugins, catalog, ctx, f, packArgs(args, kwargs)),
      functions: () => registry.functionNames(),
      has: (f) => registry.find(f) !== undefined,
    };
    jobContainer.register(ISalt, salt);
    jobContainer.register(IModules, catalog);
    // State functions run inside this job: same jid, abort signal and cross-call services.
    jobContainer.register(
      IStates,
      plugins.states((f, a, stateCtx) => this.call(plugins, catalog, ctx, f, a, undefined, 'state', [stateCtx])),
    );
    const { descriptor } = found.module;
    const values = found.fn.contract === 'render' ? [] : bindArguments(found.fn, arg, pub);
    const instance = instantiate(descriptor.cls, descriptor.injections, jobContainer, `Module '${descriptor.name}'`) as Record<
      string,
      unknown
    >;
    const method = instance[found.fn.method] as (...a: unknown[]) => unknown;
    return await method.apply(instance, [...values, ...extra]);
  }

  private missing(registry: ModuleRegistry, fun: string): JobResult {
    const error = registry.missingError(fun);
    let message = error.message;
    // Salt appends the module's load error (its `function_errors`), as `sys.missing_modules` has it.
    const failure = registry.loadFailure(fun.split('.')[0]);
    if (error instanceof FunctionNotFoundError && failure) message += ` Possible reasons: '${failure}'`;
    const docs = registry.docsStartingWith(fun);
    if (Object.keys(docs).length > 0) return { return: { ...docs, [fun]: message }, retcode: EX_GENERIC, success: false, out: 'nested' };
    return { return: message, retcode: EX_GENERIC, success: false, out: 'nested' };
  }

  private describeError(registry: ModuleRegistry, fun: string, err: unknown): string {
    // By code, not class: a plugin with its own copy of brine/plugin throws its copy's classes.
    const code = pluginErrorCode(err);
    const message = err instanceof Error ? err.message : String(err);
    if (code === 'COMMAND_EXECUTION') {
      this.logger?.error("A command in '%s' had a problem: %s", fun, message);
      return `ERROR: ${message}`;
    }
    if (code === 'INVOCATION') {
      this.logger?.error("Problem executing '%s': %s", fun, message);
      return `ERROR executing '${fun}': ${message}`;
    }
    if (code === 'ARGUMENT') {
      const doc = registry.find(fun)?.fn.doc ?? '';
      const answer = `Passed invalid arguments to ${fun}: ${message}\n${doc}`;
      this.logger?.warning('%s', answer);
      return answer;
    }
    this.logger?.warning('The minion function caused an exception: %s', errorText(err));
    return `The minion function caused an exception: ${errorText(err)}`;
  }
}

const PLUGIN_ERROR_CODES = new Set(['COMMAND_EXECUTION', 'INVOCATION', 'ARGUMENT']);

function pluginErrorCode(err: unknown): string | undefined {
  if (!(err instanceof Error)) return undefined;
  const code = (err as { code?: unknown }).code;
  return typeof code === 'string' && PLUGIN_ERROR_CODES.has(code) && err.name.endsWith('Error') ? code : undefined;
}

function isFailedResult(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const v = value as Record<string, unknown>;
  return ('result' in v && !v.result) || ('success' in v && !v.success);
}
