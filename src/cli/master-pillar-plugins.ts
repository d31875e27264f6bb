import { hostname } from 'node:os';
import type { MasterConfig } from '../core/config';
import type { Logging } from '../core/log';
import type { PillarPlugins } from '../core/master/pillar-service';
import { BUILTIN_PLUGINS } from '../../plugins';
import { PluginRuntime } from '../plugins/runtime';
import { extPillarsOf, renderersOf } from '../plugins/render-kinds';
import { pluginPackageDirs } from '../plugins/loader/package-dirs';
import { StaticConfig } from '../plugins/services/config';
import { pillarTemplateCaller } from './minion-runtime';

/**
 * The master's plugins for pillar compiles. As Salt's master does (its Pillar loads the minion
 * modules with the master's options), the master runs its own execution functions for
 * `salt['mod.fun'](...)` in pillar templates, with the master host's grains; ext_pillar sources
 * and renderers come from the same plugins: the built-ins, the master's `module_dirs` and the
 * `brine-plugin-*` packages of its `plugin_dirs` (and of brine's installation). They load on the
 * first compile, once, so a master that serves no pillar never pays for them.
 *
 * @example
 * new Master(config, log, { pillarPlugins: masterPillarPlugins(config, logging) });
 */
export function masterPillarPlugins(config: MasterConfig, logging: Logging): PillarPlugins {
  let runtime: Promise<PluginRuntime> | undefined;
  const start = async (): Promise<PluginRuntime> => {
    const logger = logging.getLogger('salt.loader');
    const packages = pluginPackageDirs(config.plugin_dirs);
    for (const p of packages.problems) logger.warning(`${p.origin}: ${p.error.message}`);
    const opts = config as unknown as Record<string, unknown>;
    return PluginRuntime.start({
      // Salt's master minion id: the host name with `_master`.
      config: new StaticConfig({ ...opts, id: typeof opts.id === 'string' && opts.id ? opts.id : `${hostname()}_master` }),
      logger,
      builtins: BUILTIN_PLUGINS,
      moduleDirs: config.module_dirs ?? [],
      npm: { nodeModules: packages.dirs },
    });
  };
  return async (override) => {
    // A failed start is not kept: the next compile tries again (and logs again).
    const rt = await (runtime ??= start().catch((err: unknown) => {
      runtime = undefined;
      throw err;
    }));
    return { caller: pillarTemplateCaller(rt, override), extPillars: extPillarsOf(rt), renderers: renderersOf(rt) };
  };
}
