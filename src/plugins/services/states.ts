/**
 * {@link IStates} on this minion: SLS files from `file_roots` (file_client local) or from the
 * master through the minion's file cache (file_client remote), state
 * modules from the loaded `@StateModule` plugins, and the compiler/runner of src/core/state.
 */
import { InvocationError } from '../api/errors';
import type { IConfig, IGrains, IShell } from '../api/services';
import type { IStates, StateContext, StateReturn, StateRunOptions, StateRunReturn } from '../api/states';
import type { ModuleRegistry } from '../loader/registry';
import { packArgs } from '../../core/protocol/salt-args';
import { isTrue } from '../../core/pycompat/is-true';
import type { PipelineSlsRenderer } from '../../core/state/render-sls';
import { LocalSlsSource, type SlsSource } from '../../core/state/sls-source';
import type { StateFunction, StateFunctions } from '../../core/state/state-functions';
import type { StateSystem } from '../../core/state/state-system';
import { stateRetcode } from '../../core/state/retcode';
import type { LowChunk, StateResult } from '../../core/state/types';
import { lazyModule } from '../../core/lazy-module';

/** Calls one state function inside the current job with Salt's `arg` list and its {@link StateContext}. */
export type StateInvoker = (fun: string, arg: unknown[], ctx: StateContext) => Promise<unknown>;

/**
 * The state functions of the loaded `@StateModule` plugins (built-ins and third-party alike), as
 * the state runner looks them up. Each call goes through the job's executor, so a state function
 * is bound, coerced and injected (ISalt, IJobContext, ...) as any plugin function is.
 */
export class PluginStateFunctions implements StateFunctions {
  constructor(
    private readonly registry: ModuleRegistry,
    private readonly invoke: StateInvoker,
  ) {}

  find(fun: string): StateFunction | undefined {
    const found = this.registry.find(fun, 'state');
    if (!found) return undefined;
    const { fn } = found;
    const named = fn.params.filter((p) => p.kind === 'positional').map((p) => p.name);
    const takesAll = fn.params.some((p) => p.kind === 'kwargs') && fn.kwargsKeys === null;
    const accepted = new Set([...named, ...(fn.kwargsKeys ?? [])]);
    return {
      required: fn.params.filter((p) => p.kind === 'positional' && !p.optional).map((p) => p.name),
      call: async (args, call) => {
        // Salt's format_call: keywords the function does not take are dropped, unless it takes **kwargs.
        const kwargs = takesAll ? args : Object.fromEntries(Object.entries(args).filter(([k]) => accepted.has(k)));
        const ctx: StateContext = {
          test: call.test,
          id: call.low.__id__,
          sls: call.low.__sls__,
          low: call.low,
          running: call.running as unknown as Record<string, StateReturn>,
          saltenv: call.saltenv,
          cacheFile: (s) => call.cacheFile(s),
          renderTemplate: (path, name, context = {}) => call.template(path, name, context),
          listFiles: (s) => call.listFiles(s),
          pillar: call.pillar,
        };
        return (await this.invoke(fun, packArgs([], kwargs), ctx)) as StateResult;
      },
    };
  }

  missingReason(fun: string): string {
    return `'${fun}' is not available.`;
  }
}

export class NodeStates implements IStates {
  constructor(
    private readonly config: IConfig,
    private readonly grains: IGrains,
    private readonly shell: IShell,
    private readonly functions: StateFunctions,
    /** Where SLS files come from; called once per run (a remote source checks each file once per run). */
    private readonly sourceFor: () => SlsSource = () => new LocalSlsSource(fileRoots(config)),
  ) {}

  private async renderer(opts: StateRunOptions): Promise<PipelineSlsRenderer> {
    // The renderers (Jinja, YAML) load with the first state run or template, not with every
    // minion and salt-call: most jobs render nothing.
    const { PipelineSlsRenderer } = await lazyModule(
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      () => require('../../core/state/render-sls.js') as typeof import('../../core/state/render-sls.js'),
      () => import('../../core/state/render-sls.js'),
    );
    return new PipelineSlsRenderer(
      this.config.all(),
      opts.caller ? { call: (f, a, k) => opts.caller!.call(f, a, k), has: (f) => opts.caller!.has(f) } : undefined,
      this.config.get<string | undefined>('renderer', undefined),
    );
  }

  async renderTemplate(path: string, name: string, opts: StateRunOptions, context: Record<string, unknown> = {}): Promise<string> {
    const saltenv = opts.saltenv ?? 'base';
    return (await this.renderer(opts)).template(path, name, {
      saltenv,
      sls: '',
      grains: this.grains.all(),
      pillar: opts.pillar ?? {},
      roots: this.sourceFor().roots(saltenv),
      context,
    });
  }

  private async system(opts: StateRunOptions): Promise<StateSystem> {
    // The compiler and the runner load with the first state run too.
    const { StateSystem } = await lazyModule(
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      () => require('../../core/state/state-system.js') as typeof import('../../core/state/state-system.js'),
      () => import('../../core/state/state-system.js'),
    );
    const renderer = await this.renderer(opts);
    return new StateSystem({
      source: this.sourceFor(),
      renderer,
      functions: this.functions,
      minionId: String(this.config.get('id', '')),
      grains: this.grains.all(),
      pillar: opts.pillar ?? {},
      failhard: isTrue(this.config.get('failhard', false)),
      stateTop: String(this.config.get('state_top', 'top.sls')).replace(/^salt:\/\//, ''),
      autoOrder: this.config.get<unknown>('state_auto_order', true) !== false,
      top: {
        strategy: this.config.get<unknown>('top_file_merging_strategy', 'merge'),
        envOrder: this.config.get<unknown[]>('env_order', []),
        defaultTop: String(this.config.get('default_top', 'base')),
        nodegroups: this.config.get<Record<string, string>>('nodegroups', {}),
      },
      shellCheck: async (cmd: string, low: LowChunk) => {
        const res = await this.shell.run(cmd, {
          pythonShell: true,
          cwd: typeof low.cwd === 'string' ? low.cwd : undefined,
          runas: typeof low.runas === 'string' ? low.runas : undefined,
        });
        return res.retcode;
      },
    });
  }

  private run(opts: StateRunOptions) {
    return {
      saltenv: opts.saltenv ?? 'base',
      topSaltenv: opts.saltenv ?? null,
      test: opts.test ?? this.defaultTest(),
      exclude: opts.exclude,
    };
  }

  defaultTest(): boolean {
    return isTrue(this.config.get('test', false));
  }

  async sls(mods: string[], opts: StateRunOptions): Promise<StateRunReturn> {
    return (await this.system(opts)).sls(mods, this.run(opts)) as Promise<StateRunReturn>;
  }

  async highstate(opts: StateRunOptions): Promise<StateRunReturn> {
    return (await this.system(opts)).highstate(this.run(opts)) as Promise<StateRunReturn>;
  }

  async single(fun: string, name: string, kwargs: Record<string, unknown>, opts: StateRunOptions): Promise<StateRunReturn> {
    return (await this.system(opts)).single(fun, name, kwargs, this.run(opts)) as Promise<StateRunReturn>;
  }

  async slsId(id: string, mods: string[], opts: StateRunOptions): Promise<StateRunReturn> {
    const ret = await (await this.system(opts)).slsId(id, mods, this.run(opts));
    // Salt raises SaltInvocationError: "ERROR executing 'state.sls_id': ..." from the minion.
    if (ret === null)
      throw new InvocationError(`No matches for ID '${id}' found in SLS '${mods.join(',')}' within saltenv '${opts.saltenv ?? 'base'}'`);
    return ret as StateRunReturn;
  }

  async showSls(mods: string[], opts: StateRunOptions): Promise<unknown> {
    return (await this.system(opts)).showSls(mods, opts.saltenv ?? 'base');
  }

  async showLowSls(mods: string[], opts: StateRunOptions): Promise<unknown> {
    return (await this.system(opts)).showLowSls(mods, opts.saltenv ?? 'base');
  }

  async showTop(opts: StateRunOptions): Promise<unknown> {
    return (await this.system(opts)).showTop();
  }

  async showHighstate(opts: StateRunOptions): Promise<unknown> {
    return (await this.system(opts)).showHighstate();
  }

  async showLowstate(opts: StateRunOptions): Promise<unknown> {
    return (await this.system(opts)).showLowstate();
  }

  retcode(ret: StateRunReturn): number {
    return stateRetcode(ret as Record<string, StateResult> | string[]);
  }
}

/** `file_roots` of the minion config (default: base -> /srv/salt). */
export function fileRoots(config: IConfig): Record<string, string[]> {
  const roots = config.get<unknown>('file_roots', { base: ['/srv/salt'] });
  const out: Record<string, string[]> = {};
  if (roots && typeof roots === 'object') {
    for (const [env, dirs] of Object.entries(roots as Record<string, unknown>)) {
      out[env] = (Array.isArray(dirs) ? dirs : [dirs]).map(String);
    }
  }
  return out;
}
