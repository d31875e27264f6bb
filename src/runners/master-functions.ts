/**
 * The functions that run on the master's host: runners (`salt-run`, salt-api's `runner` clients)
 * and wheel functions (salt-api's `wheel` clients), one table per kind.
 *
 * Runners and wheel modules are plugin kinds (`@Runner`, `@Wheel` in `brine/plugin`): the
 * built-in ones under `plugins/` (manage, cache) and those of the master's `module_dirs` files and
 * `plugin_dirs` packages load through the same loader as execution modules, with the master's
 * configuration as their IConfig and {@link IMaster} to reach the minions. A plugin of a built-in
 * name replaces it, as on the minion. The functions over the master's own stores (jobs.* over
 * the job cache, the key.* wheel over the key store, doc.*) are built in here.
 *
 *   const fns = await MasterFunctions.load({ master, keys, jobs, logger });
 *   await fns.runners.get('manage.up')?.call([], {}, { user: 'root' }); // ['web1']
 */
import type { MasterConfig } from '../core/config';
import type { JobRunner } from '../core/client/local-jobs';
import type { KeyStore } from '../core/master/key-store';
import { readMinionData } from '../core/master/minion-data-cache';
import { connectedMinions } from '../core/master/presence';
import { targetResolver } from '../core/master/target-preview';
import { packArgs } from '../core/protocol/salt-args';
import { JidFactory } from '../core/protocol/jid';
import { IMaster, type MinionAnswer, type MinionCall, type PillarFor } from '../plugins/api/master';
import type { ILogger } from '../plugins/api/services';
import { CommandExecutionError } from '../plugins/api/errors';
import type { PluginKind } from '../plugins/api/metadata';
import { Executor } from '../plugins/executor';
import { PluginLoader } from '../plugins/loader/loader';
import { pluginPackageDirs } from '../plugins/loader/package-dirs';
import type { LoadProblem } from '../plugins/loader/registry';
import { StaticConfig } from '../plugins/services/config';
import { MinionPillar } from '../plugins/services/pillar';
import { compilePillar, pillarTop, type CompilePillarOptions, type PillarLog } from '../core/pillar';
import type { PillarPlugins } from '../core/master/pillar-service';
import { hostname } from 'node:os';
import { BUILTIN_MASTER_PLUGINS, BUILTIN_ORCHESTRATION_STATES, BUILTIN_RETURNERS } from '../../plugins';
import { openMasterJobCache } from '../plugins/master-returners';
import { StreamLogger } from '../plugins/services/logger';
import { builtinRunners } from './builtin-runners';
import { wheelFunctions } from './wheel';
import type { ResolveTarget } from '../core/master/target-preview';

/** A master-side function (runner or wheel): positional and keyword arguments in, a value out. */
export interface MasterFunction {
  /** The docstring `doc.runner` / `doc.wheel` show. */
  doc: string;
  call(args: unknown[], kwargs: Record<string, unknown>, ctx: { user: string }): Promise<unknown>;
}

export type FunctionTable = ReadonlyMap<string, MasterFunction>;

/** The accepted minions a target expression matches, judged from cached grains. */
export type { ResolveTarget };

export interface MasterFunctionsOptions {
  master: MasterConfig;
  keys: KeyStore;
  /** How runners publish jobs and wait for them. */
  jobs: JobRunner;
  logger?: ILogger;
  /** The master's plugins for pillar compiles (ext_pillar, renderers, `salt[...]`), as the master daemon has them. */
  pillarPlugins?: PillarPlugins;
}

/** The compiler's log on the functions' logger (critical is an error there). */
function pillarLog(logger: ILogger | undefined): PillarLog | undefined {
  return (
    logger && {
      critical: (m) => logger.error(m),
      error: (m) => logger.error(m),
      warning: (m) => logger.warning(m),
      debug: (m) => logger.debug(m),
    }
  );
}

/** {@link IMaster} for the plugins: jobs through the JobRunner, knowledge from the key store and caches. */
class MasterView implements IMaster {
  /** The runner and wheel tables, known once they are built (their plugins are loaded with this view). */
  private functions?: { runners: FunctionTable; wheels: FunctionTable };

  constructor(
    private readonly o: MasterFunctionsOptions,
    private readonly resolve: ResolveTarget,
  ) {}

  attach(runners: FunctionTable, wheels: FunctionTable): void {
    this.functions = { runners, wheels };
  }

  runner(fun: string, args: unknown[] = [], kwargs: Record<string, unknown> = {}): Promise<unknown> {
    return this.call('runner', this.functions?.runners, fun, args, kwargs);
  }

  wheel(fun: string, args: unknown[] = [], kwargs: Record<string, unknown> = {}): Promise<unknown> {
    return this.call('wheel', this.functions?.wheels, fun, args, kwargs);
  }

  private async call(kind: string, table: FunctionTable | undefined, fun: string, args: unknown[], kwargs: Record<string, unknown>) {
    const f = table?.get(fun);
    if (!f) throw new CommandExecutionError(`${kind} function '${fun}' is not available`);
    return f.call(args, kwargs, { user: this.o.master.user });
  }

  async cmd(call: MinionCall): Promise<MinionAnswer[]> {
    const res = await this.o.jobs.run({
      tgt: call.tgt,
      tgtType: call.tgtType ?? 'glob',
      fun: call.fun,
      arg: call.arg ?? [],
      user: this.o.master.user,
      timeoutSec: call.timeout,
      gatherJobTimeoutSec: call.gatherJobTimeout,
    });
    return res?.returns ?? [];
  }

  acceptedMinions(): string[] {
    return [...(this.o.keys.list('accepted') as string[])].sort();
  }

  match(tgt: string | string[], tgtType = 'glob'): string[] {
    return [...this.resolve(tgt, tgtType)].sort();
  }

  cachedGrains(id: string): Record<string, unknown> {
    return readMinionData(this.o.master.cachedir, id).grains ?? {};
  }

  cachedPillar(id: string): Record<string, unknown> {
    return readMinionData(this.o.master.cachedir, id).pillar ?? {};
  }

  async compilePillar(request: PillarFor): Promise<Record<string, unknown>> {
    return compilePillar(await this.pillarOptions(request));
  }

  async pillarTop(request: PillarFor): Promise<{ top: Record<string, Record<string, unknown[]>>; errors: string[] }> {
    return pillarTop(await this.pillarOptions(request));
  }

  /** A compile as the master daemon's for a minion (MasterPillar), from the master's options. */
  private async pillarOptions(r: PillarFor): Promise<CompilePillarOptions> {
    let extras: Awaited<ReturnType<PillarPlugins>> = {};
    try {
      extras = (await this.o.pillarPlugins?.({})) ?? {};
    } catch (err) {
      // As the master's: without its plugins the compile goes on with brine's own sources.
      this.o.logger?.error(`The master's plugins could not be loaded for pillar: ${(err as Error)?.message ?? err}`);
    }
    return {
      minionId: r.minionId,
      grains: r.grains,
      opts: this.o.master as unknown as Record<string, unknown>,
      saltenv: r.saltenv ?? null,
      pillarenv: r.pillarenv ?? null,
      ...extras,
      log: pillarLog(this.o.logger),
    };
  }
}

function stripDunder(kwargs: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(kwargs)) if (!k.startsWith('__')) out[k] = v;
  return out;
}

export class MasterFunctions {
  private constructor(
    readonly runners: FunctionTable,
    readonly wheels: FunctionTable,
    /** Plugin files or packages that failed to load, with the reason. */
    readonly problems: readonly LoadProblem[],
    readonly resolveTarget: ResolveTarget,
  ) {}

  static async load(o: MasterFunctionsOptions): Promise<MasterFunctions> {
    const { master } = o;
    const resolveTarget = targetResolver(master, o.keys);
    const packages = pluginPackageDirs(master.plugin_dirs);
    // The master as Salt's MasterMinion sees itself: the id `<host>_master` unless configured,
    // its own pillar from pillar_roots (orchestrations render with it).
    const opts = { ...master, id: master.id ?? `${hostname()}_master` } as unknown as Record<string, unknown>;
    let grains = (): Record<string, unknown> => ({});
    const pillar = new MinionPillar((p) =>
      compilePillar({
        minionId: String(opts.id),
        grains: grains(),
        opts,
        saltenv: p.saltenv,
        pillarenv: p.pillarenv,
        pillarOverride: p.override,
        log: pillarLog(o.logger),
      }),
    );
    const view = new MasterView(o, resolveTarget);
    const plugins = await new PluginLoader({
      config: new StaticConfig(opts),
      pillar,
      logger: o.logger,
      builtins: [...BUILTIN_MASTER_PLUGINS, ...BUILTIN_ORCHESTRATION_STATES],
      moduleDirs: master.module_dirs ?? [],
      npm: { nodeModules: packages.dirs },
      services: [[IMaster, view]],
    }).load();
    grains = () => plugins.grains.all();
    const problems = [...packages.problems, ...plugins.registry.problems];
    for (const p of problems) o.logger?.warning(`${p.origin}: ${p.error.message}`);
    const executor = new Executor(plugins, o.logger);
    const jids = new JidFactory();
    const fromPlugins = (kind: PluginKind): Map<string, MasterFunction> => {
      const table = new Map<string, MasterFunction>();
      for (const fun of plugins.registry.functionNames(kind)) {
        table.set(fun, {
          doc: plugins.registry.find(fun, kind)?.fn.doc ?? '',
          call: (args, kwargs, ctx) =>
            executor.invoke(kind, fun, { arg: packArgs(args, stripDunder(kwargs)) }, { fun, jid: jids.next(), user: ctx.user }),
        });
      }
      return table;
    };

    const wheels = new Map<string, MasterFunction>([
      ...wheelFunctions({
        master,
        keys: o.keys,
        connected: async () =>
          connectedMinions(
            Number(master.publish_port),
            o.keys.list('accepted') as string[],
            (id) => readMinionData(master.cachedir, id).grains,
          ),
      }),
      ...fromPlugins('wheel'),
    ]);
    const runners = new Map<string, MasterFunction>();
    const builtin = builtinRunners({
      master,
      jobs: o.jobs,
      runners: () => runners,
      wheels: () => wheels,
      // jobs.* read the job cache the master keeps, a returner's when master_job_cache names one.
      openCache: () =>
        openMasterJobCache({
          config: master as unknown as Record<string, unknown>,
          logger: o.logger ?? new StreamLogger(),
          builtins: BUILTIN_RETURNERS,
        }),
    });
    for (const [name, f] of [...builtin, ...fromPlugins('runner')]) runners.set(name, f);
    view.attach(runners, wheels);
    return new MasterFunctions(runners, wheels, problems, resolveTarget);
  }
}
