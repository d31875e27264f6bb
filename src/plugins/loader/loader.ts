import { dirname, join } from 'node:path';
import * as api from '../api';
import { readGrainsProvider, readInjectionTokens } from '../api/metadata';
import { IHost } from '../api/host';
import { IConfig, IGrains, IJobContext, ILogger, IPillar, ISalt, IShell } from '../api/services';
import { IMinionControl, IModules } from '../api/control';
import { IMasterLink } from '../api/master-link';
import { IMinionEvents } from '../api/minion-events';
import { NoMasterLink } from '../services/master-link';
import { MinionEventBus } from '../services/minion-events';
import { IStates } from '../api/states';
import { fileRoots, NodeStates, PluginStateFunctions, type StateInvoker } from '../services/states';
import { LocalSlsSource, RemoteSlsSource, type SlsSource } from '../../core/state/sls-source';
import { FileCache, type RemoteFiles } from '../../core/minion/file-cache';
import { PluginDefinitionError } from '../api/errors';
import { GrainsStore, type GrainsCollector } from '../services/grains-store';
import { NodeHost } from '../services/host';
import { NoPillar } from '../services/pillar';
import { NodeShell } from '../services/shell';
import { StreamLogger } from '../services/logger';
import { returnerStores } from '../services/job-stores';
import { classify, discoverModuleDirs, discoverNpm, type DiscoveredPlugins, type NpmPluginOptions } from './discovery';
import { exploreModule } from './explorer';
import { setHostApi } from './host-require';
import { ServiceContainer } from './container';
import { instantiate, missingServiceError, unknownServices } from './instantiate';
import { ModuleRegistry } from './registry';
import { ModuleFilter } from './module-filter';

/** What the host gives the loader. Services left out get the local-machine implementations. */
export interface PluginLoaderOptions {
  config: api.IConfig;
  shell?: api.IShell;
  logger?: api.ILogger;
  host?: api.IHost;
  /** Use these grains as they are instead of running grains providers (tests, salt-call --local). */
  grains?: api.IGrains;
  /** Built-in plugin classes, loaded first. */
  builtins?: readonly unknown[];
  /**
   * Built-in modules known by kind and name, whose code is loaded when first asked for (see
   * {@link ModuleRegistry.defer}); they come before the `builtins` classes' modules.
   */
  lazyBuiltins?: readonly LazyBuiltin[];
  /**
   * Plugin classes registered for their names and docs only, their services unchecked: this
   * process lists them but never calls them (a minion's `sys.list_runners` lists the master's
   * built-in runners, which need the master's services).
   */
  listedOnly?: readonly unknown[];
  /** Directories of plugin files. Default: the config's `module_dirs`. */
  moduleDirs?: readonly string[];
  /** npm plugin packages. */
  npm?: NpmPluginOptions;
  /** The minion's control (running jobs, reloads, sync); modules that need it fail to load without it. */
  control?: api.IMinionControl;
  /** The minion's pillar. Default: none, and asking for it is a clear error. */
  pillar?: api.IPillar;
  /** The minion's link to its master (events, file server, mine). Default: none, and each request is a clear error. */
  masterLink?: api.IMasterLink;
  /** The master's file server (absent for `salt-call --local`): SLS and `salt://` files unless file_client is local. */
  files?: RemoteFiles;
  /** Services of this host only (the master's {@link api.IMaster} for runners), by service id. */
  services?: ReadonlyArray<readonly [symbol, unknown]>;
}

/** A built-in module loaded on first use: its kind and name, and how to get its class. */
export interface LazyBuiltin {
  kind: api.PluginKind;
  name: string;
  load(): unknown;
  /** Registered for its name and docs only, as {@link PluginLoaderOptions.listedOnly}. */
  listedOnly?: boolean;
}

/** Everything a loaded plugin set offers the executor. */
export interface LoadedPlugins {
  registry: ModuleRegistry;
  /** The container the loader owns; each job gets a child of it. */
  container: ServiceContainer;
  grains: api.IGrains;
  /** Recompute grains (grains providers, static file, config). */
  refreshGrains(): Promise<void>;
  /**
   * The state system of one job ({@link IStates}): its state functions are the loaded
   * `@StateModule` plugins, called through `invoke` inside that job.
   */
  states(invoke: StateInvoker): api.IStates;
}

// Services only a job has; modules may ask for them although the root container lacks them.
const PER_JOB = [IJobContext, ISalt, IModules, IStates] as const;

/**
 * Finds plugins (built-ins, module_dirs files, npm packages, in that order), computes grains,
 * checks each module's availability and services, and registers the rest into a
 * {@link ServiceContainer} it owns (never a global one). A module that fails is reported in
 * `registry.problems` while the others load; a later source's module replaces an earlier one of
 * the same name (a custom `test` overrides the built-in), unless it is unavailable.
 *
 * @example
 * const plugins = await new PluginLoader({ config, builtins: BUILTIN_PLUGINS }).load();
 * plugins.registry.functionNames(); // ['cmd.run', ..., 'test.ping', ...]
 */
export class PluginLoader {
  /** disable_modules, whitelist_modules, ...: what the config keeps from loading. */
  private filter?: ModuleFilter;
  private logger?: api.ILogger;

  constructor(private readonly options: PluginLoaderOptions) {}

  async load(): Promise<LoadedPlugins> {
    const { config } = this.options;
    const logger = this.options.logger ?? new StreamLogger();
    const container = new ServiceContainer();
    container.register(IConfig, config);
    container.register(ILogger, logger);
    container.register(IShell, this.options.shell ?? new NodeShell());
    container.register(IHost, this.options.host ?? new NodeHost('/'));
    if (this.options.control) container.register(IMinionControl, this.options.control);
    container.register(IPillar, this.options.pillar ?? new NoPillar());
    const masterLink = this.options.masterLink ?? new NoMasterLink();
    container.register(IMasterLink, masterLink);
    container.register(IMinionEvents, new MinionEventBus(masterLink, logger));
    // The returners' stores (this daemon's job cache, the job cache's PostgreSQL), opened on first use.
    for (const [id, service] of returnerStores(config.all()).services) container.register(id, service);
    for (const [id, service] of this.options.services ?? []) container.register(id, service);

    const registry = new ModuleRegistry();
    this.filter = ModuleFilter.fromConfig(config);
    this.logger = logger;
    const sources: DiscoveredPlugins[] = [classify('builtin', { ...(this.options.builtins ?? []) } as Record<string, unknown>)];
    const moduleDirs = this.options.moduleDirs ?? asStringList(config.get('module_dirs', []));
    setHostApi(api);
    if (moduleDirs.length > 0) {
      const fromDirs = discoverModuleDirs(moduleDirs);
      collect(fromDirs, sources, registry);
      registry.files.push(...fromDirs.files);
    }
    if (this.options.npm) collect(discoverNpm(this.options.npm), sources, registry);

    let grains = this.options.grains;
    let refreshGrains = async (): Promise<void> => undefined;
    if (!grains) {
      const store = new GrainsStore({
        providers: this.grainsProviders(sources, container, registry),
        configGrains: asRecord(config.get('grains', {})),
        grainsFile: grainsFilePath(config),
        logger,
      });
      await store.refresh();
      grains = store;
      refreshGrains = () => store.refresh();
    }
    container.register(IGrains, grains);
    const states = this.states(container, registry, grains);

    const allGrains = grains.all();
    for (const cls of this.options.listedOnly ?? []) this.addModule(cls, 'builtin', container, registry, allGrains, false);
    for (const entry of this.options.lazyBuiltins ?? []) {
      registry.defer(entry.kind, entry.name, () => {
        let cls: unknown;
        try {
          cls = entry.load();
        } catch (err) {
          registry.problems.push({ origin: 'builtin', module: entry.name, error: toError(err) });
          return;
        }
        this.addModule(cls, 'builtin', container, registry, allGrains, !entry.listedOnly);
      });
    }
    for (const source of sources) {
      for (const cls of source.modules) this.addModule(cls, source.origin, container, registry, allGrains);
    }
    return { registry, container, grains, refreshGrains, states };
  }

  /** The state system of a job, over the `@StateModule` plugins of the registry. */
  private states(container: ServiceContainer, registry: ModuleRegistry, grains: api.IGrains): (invoke: StateInvoker) => api.IStates {
    const config = this.options.config;
    const shell = container.get(IShell) as api.IShell;
    const source = this.slsSource();
    return (invoke) => new NodeStates(config, grains, shell, new PluginStateFunctions(registry, invoke), source);
  }

  /**
   * Salt's file_client: `local` reads file_roots here; otherwise (the default, `remote`) SLS and
   * `salt://` files come from the master through the file cache in `cachedir`.
   */
  private slsSource(): () => SlsSource {
    const { config, files } = this.options;
    if (!files || config.get<unknown>('file_client', 'remote') === 'local') {
      const roots = fileRoots(config);
      return () => new LocalSlsSource(roots);
    }
    const cachedir = String(config.get('cachedir', ''));
    if (!cachedir) throw new PluginDefinitionError("the minion config gives no cachedir: nowhere to cache the master's files");
    const cache = new FileCache(files, cachedir);
    return () => new RemoteSlsSource(cache);
  }

  private grainsProviders(sources: DiscoveredPlugins[], container: ServiceContainer, registry: ModuleRegistry): GrainsCollector[] {
    const providers: GrainsCollector[] = [];
    for (const source of sources) {
      for (const cls of source.grainsProviders) {
        const name = readGrainsProvider(cls)?.name ?? 'unknown';
        try {
          const klass = cls as new (...args: never[]) => { collect?: unknown };
          const instance = instantiate(klass, readInjectionTokens(klass), container, `Grains provider '${name}'`);
          if (typeof instance.collect !== 'function') throw new PluginDefinitionError(`Grains provider '${name}' has no collect() method`);
          providers.push({ name, collect: () => (instance.collect as () => Record<string, unknown>)() });
        } catch (err) {
          registry.problems.push({ origin: source.origin, error: toError(err) });
        }
      }
    }
    return providers;
  }

  private addModule(
    cls: unknown,
    origin: string,
    container: ServiceContainer,
    registry: ModuleRegistry,
    grains: Record<string, unknown>,
    checkServices = true,
  ): void {
    let name: string | undefined;
    try {
      const descriptor = exploreModule(cls);
      name = descriptor.name;
      const refusal = this.filter?.refusal(descriptor.kind, name, descriptor.file);
      if (refusal !== undefined) {
        this.logger?.info(`Not loading the ${descriptor.kind} module ${name} (class ${descriptor.cls.name}): ${refusal}`);
        return;
      }
      const missing = checkServices ? unknownServices(descriptor.injections, container, PER_JOB) : [];
      if (missing.length > 0) throw missingServiceError(`Module '${name}'`, descriptor.cls.name, missing);
      const verdict = descriptor.available ? descriptor.available(grains) : true;
      if (verdict === true) registry.add(descriptor, origin);
      else registry.markUnavailable(name, typeof verdict === 'string' ? verdict : undefined, descriptor.kind);
    } catch (err) {
      registry.problems.push({ origin, module: name, error: toError(err) });
    }
  }
}

function collect(
  result: { found: DiscoveredPlugins[]; problems: ModuleRegistry['problems'] },
  sources: DiscoveredPlugins[],
  registry: ModuleRegistry,
): void {
  sources.push(...result.found);
  registry.problems.push(...result.problems);
}

function toError(err: unknown): Error {
  return err instanceof Error ? err : new Error(String(err));
}

function asStringList(v: unknown): string[] {
  if (typeof v === 'string') return [v];
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

function asRecord(v: unknown): Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

/** Salt keeps static grains in `grains` next to the minion config file. */
function grainsFilePath(config: api.IConfig): string | undefined {
  const confFile = config.get<unknown>('conf_file');
  if (typeof confFile === 'string' && confFile) return join(dirname(confFile), 'grains');
  const confDir = config.get<unknown>('config_dir');
  return typeof confDir === 'string' && confDir ? join(confDir, 'grains') : undefined;
}
