/**
 * {@link IStates} on this minion: SLS files from `file_roots` (file_client local) or from the
 * master through the minion's file cache, state modules from the loaded plugins, and the
 * compiler/runner of src/core/state.
 */
import type { IConfig, IGrains, IShell } from '../api/services';
import type { IStates, StateContext, StateModuleClass, StateReturn, StateRunOptions, StateRunReturn } from '../api/states';
import { PipelineSlsRenderer } from '../../core/state/render-sls';
import { LocalSlsSource, type SlsSource } from '../../core/state/sls-source';
import type { StateFunction, StateFunctions } from '../../core/state/state-functions';
import { StateSystem, stateRetcode } from '../../core/state/state-system';
import type { LowChunk, StateResult } from '../../core/state/types';

/** State module functions by `mod.fun`, from instantiated state module classes. */
export class StateModuleTable implements StateFunctions {
  private readonly table = new Map<string, StateFunction>();

  constructor(modules: { cls: StateModuleClass; instance: object }[]) {
    for (const { cls, instance } of modules) {
      for (const [fun, required] of Object.entries(cls.functions)) {
        const method = (instance as Record<string, unknown>)[fun];
        if (typeof method !== 'function') continue;
        this.table.set(`${cls.stateModule}.${fun}`, {
          required,
          call: (args, call) => {
            const ctx: StateContext = {
              test: call.test,
              id: call.low.__id__,
              sls: call.low.__sls__,
              low: call.low,
              running: call.running as unknown as Record<string, StateReturn>,
              saltenv: call.saltenv,
              cacheFile: (s) => call.cacheFile(s),
              renderTemplate: (path, name, context = {}) => call.template(path, name, context),
            };
            return (method as (a: unknown, c: StateContext) => Promise<StateResult>).call(instance, args, ctx);
          },
        });
      }
    }
  }

  find(fun: string): StateFunction | undefined {
    return this.table.get(fun);
  }

  missingReason(fun: string): string {
    return `'${fun}' is not available.`;
  }
}

function isTrue(v: unknown): boolean {
  if (typeof v === 'string') return ['true', 'yes', '1', 'on'].includes(v.toLowerCase());
  return Boolean(v);
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

  private system(opts: StateRunOptions): StateSystem {
    return new StateSystem({
      source: this.sourceFor(),
      renderer: new PipelineSlsRenderer(this.config.all(), opts.caller ? { call: (f, a, k) => opts.caller!.call(f, a, k), has: (f) => opts.caller!.has(f) } : undefined, this.config.get<string | undefined>('renderer', undefined)),
      functions: this.functions,
      minionId: String(this.config.get('id', '')),
      grains: this.grains.all(),
      pillar: opts.pillar ?? {},
      failhard: isTrue(this.config.get('failhard', false)),
      stateTop: String(this.config.get('state_top', 'top.sls')).replace(/^salt:\/\//, ''),
      autoOrder: this.config.get<unknown>('state_auto_order', true) !== false,
      shellCheck: async (cmd: string, low: LowChunk) => {
        const res = await this.shell.run(cmd, { pythonShell: true, cwd: typeof low.cwd === 'string' ? low.cwd : undefined, runas: typeof low.runas === 'string' ? low.runas : undefined });
        return res.retcode;
      },
    });
  }

  private run(opts: StateRunOptions) {
    return { saltenv: opts.saltenv ?? 'base', test: opts.test ?? this.defaultTest(), exclude: opts.exclude };
  }

  defaultTest(): boolean {
    return isTrue(this.config.get('test', false));
  }

  sls(mods: string[], opts: StateRunOptions): Promise<StateRunReturn> {
    return this.system(opts).sls(mods, this.run(opts)) as Promise<StateRunReturn>;
  }

  highstate(opts: StateRunOptions): Promise<StateRunReturn> {
    return this.system(opts).highstate(this.run(opts)) as Promise<StateRunReturn>;
  }

  single(fun: string, name: string, kwargs: Record<string, unknown>, opts: StateRunOptions): Promise<StateRunReturn> {
    return this.system(opts).single(fun, name, kwargs, this.run(opts)) as Promise<StateRunReturn>;
  }

  slsId(id: string, mods: string[], opts: StateRunOptions): Promise<StateRunReturn> {
    return this.system(opts).slsId(id, mods, this.run(opts)) as Promise<StateRunReturn>;
  }

  showSls(mods: string[], opts: StateRunOptions): Promise<unknown> {
    return this.system(opts).showSls(mods, opts.saltenv ?? 'base');
  }

  showLowSls(mods: string[], opts: StateRunOptions): Promise<unknown> {
    return this.system(opts).showLowSls(mods, opts.saltenv ?? 'base');
  }

  showTop(opts: StateRunOptions): Promise<unknown> {
    return this.system(opts).showTop();
  }

  showHighstate(opts: StateRunOptions): Promise<unknown> {
    return this.system(opts).showHighstate();
  }

  showLowstate(opts: StateRunOptions): Promise<unknown> {
    return this.system(opts).showLowstate();
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
