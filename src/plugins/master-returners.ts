/**
 * The master's returners: the built-in ones plus the master's `module_dirs` files and
 * `plugin_dirs` packages, loaded with the master's configuration. They serve `event_return`
 * (event-returns.ts) and `master_job_cache: <returner>` (Salt's pluggable master job cache):
 *
 *   const cache = await openMasterJobCache({ config, logger, builtins: BUILTIN_RETURNERS });
 *   // local_cache / sqlite / postgres / pgjsonb: the built-in caches; any other name: that
 *   // returner's prep_jid / save_load / returner / get_load / get_jid / get_jids / clean_old_jobs
 */
import { ConfigError } from '../core/errors';
import {
  BUILTIN_JOB_CACHES,
  isBuiltinJobCache,
  openJobCache,
  ReturnerJobCache,
  type JobCache,
  type JobCacheConfig,
  type JobCacheReturner,
} from '../core/master/job-cache';
import type { ILogger } from './api/services';
import { Executor } from './executor';
import { PluginLoader, type LoadedPlugins } from './loader/loader';
import { pluginPackageDirs } from './loader/package-dirs';
import { StaticConfig } from './services/config';
import { returnerStores, type ReturnerStores } from './services/job-stores';

export interface MasterReturnersOptions {
  /** The master's configuration (Salt's option names). */
  config: Record<string, unknown>;
  logger: ILogger;
  builtins: readonly unknown[];
  /** The master's job cache: `local_cache` writes there, and PostgreSQL returners share its pool. */
  jobCache?: JobCache;
}

export interface MasterReturners {
  plugins: LoadedPlugins;
  executor: Executor;
  /** What the returners' services opened; close() releases it. */
  stores: ReturnerStores;
}

function stringList(v: unknown): string[] {
  return Array.isArray(v) ? v.map(String) : typeof v === 'string' && v !== '' ? [v] : [];
}

/** Loads the master's returners; a plugin that fails to load is a warning, the others load. */
export async function loadMasterReturners(o: MasterReturnersOptions): Promise<MasterReturners> {
  const packages = pluginPackageDirs(o.config.plugin_dirs);
  const stores = returnerStores(o.config, o.jobCache);
  const plugins = await new PluginLoader({
    config: new StaticConfig(o.config),
    logger: o.logger,
    builtins: o.builtins,
    moduleDirs: stringList(o.config.module_dirs),
    npm: { nodeModules: packages.dirs },
    services: stores.services,
  }).load();
  for (const p of [...packages.problems, ...plugins.registry.problems]) o.logger.warning(`${p.origin}: ${p.error.message}`);
  return { plugins, executor: new Executor(plugins, o.logger), stores };
}

/** The functions of returner `name`, called as the job cache calls them. */
function returnerCalls(name: string, r: MasterReturners): JobCacheReturner {
  const find = (fn: string) => r.plugins.registry.find(`${name}.${fn}`, 'returner')?.fn;
  return {
    name,
    has: (fn) => find(fn) !== undefined,
    takes: (fn, param) => {
      const f = find(fn);
      return f !== undefined && (f.kwargsKeys === null || f.params.some((p) => p.name === param || p.kind === 'rest'));
    },
    call: (fn, args, kwargs = {}) => {
      const f = find(fn);
      // Only the keywords the function takes: Salt's returners differ in what they declare.
      const wanted = Object.entries(kwargs).filter(
        ([k]) => f?.kwargsKeys === null || f?.kwargsKeys.includes(k) || f?.params.some((p) => p.name === k),
      );
      const arg = wanted.length > 0 ? [...args, { __kwarg__: true, ...Object.fromEntries(wanted) }] : args;
      const fun = `${name}.${fn}`;
      return r.executor.invoke('returner', fun, { arg }, { fun, jid: 'req' });
    },
    close: () => r.stores.close(),
  };
}

/**
 * The master job cache `master_job_cache` names: a built-in one (SQLite, PostgreSQL) or a
 * returner's. A name that is neither is `ConfigError UNKNOWN_JOB_CACHE` naming the choices; a
 * returner that failed to load says why.
 */
export async function openMasterJobCache(o: MasterReturnersOptions): Promise<JobCache> {
  const name = o.config.master_job_cache ?? 'local_cache';
  if (isBuiltinJobCache(name)) return openJobCache(o.config as JobCacheConfig);
  const returners = await loadMasterReturners(o);
  const { registry } = returners.plugins;
  if (typeof name !== 'string' || !registry.module(name, 'returner')) {
    await returners.stores.close();
    const choices = [...new Set([...BUILTIN_JOB_CACHES, ...registry.moduleNames('returner')])].join(', ');
    const why = typeof name === 'string' ? (registry.loadFailure(name) ?? registry.unavailable('returner').get(name)) : undefined;
    throw new ConfigError(
      'UNKNOWN_JOB_CACHE',
      `master_job_cache: ${JSON.stringify(name)} is neither a job cache brine has nor a returner${why ? ` (${why})` : ''}; use one of: ${choices}`,
    );
  }
  return new ReturnerJobCache(returnerCalls(name, returners), { error: (m) => o.logger.error(m) });
}
