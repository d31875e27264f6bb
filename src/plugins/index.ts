/**
 * What the host (minion, salt-call) uses from the plugin system: the loader, the executor and the
 * local-machine services. Plugin authors use `brine/plugin` (./api) instead.
 */
export { PluginLoader, type PluginLoaderOptions, type LoadedPlugins } from './loader/loader';
export { ModuleRegistry, type LoadProblem, type LoadedModule } from './loader/registry';
export { exploreModule } from './loader/explorer';
export { bindArguments, splitArgs, extPillarArgs } from './loader/binder';
export type { ModuleDescriptor, FnDescriptor, ParamSpec } from './loader/descriptors';
export { Executor, type JobRequest, type JobResult } from './executor';
export { NodeShell } from './services/shell';
export { NodeHost } from './services/host';
export { StaticConfig } from './services/config';
export { StreamLogger, type LogLevel } from './services/logger';
export { GrainsStore } from './services/grains-store';
export { BUILTIN_PLUGINS } from './builtins';
