/**
 * Renderer and ext_pillar plugins (`@Renderer`/`@Render`, `@ExtPillar`/`@Pillar`) as the renderer
 * pipeline and the pillar compiler see them: the built-ins first, then every loaded plugin of
 * that kind (a plugin may replace a built-in of the same name).
 */
import { ExtPillarRegistry } from '../core/pillar';
import { RendererRegistry, defaultRenderers } from '../core/render';
import type { PluginRuntime } from './runtime';
import { extPillarArgs } from './loader/binder';

function isDict(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** The renderers a minion's templates may use: brine's, then its renderer plugins. */
export function renderersOf(runtime: PluginRuntime): RendererRegistry {
  const registry = new RendererRegistry(defaultRenderers.names().map((n) => defaultRenderers.get(n)!));
  for (const name of runtime.plugins.registry.moduleNames('renderer')) {
    registry.add({
      name,
      render: (input, ctx) =>
        runtime.invoke(
          'renderer',
          `${name}.render`,
          {
            extra: [
              input,
              { name: ctx.name, sls: ctx.sls, saltenv: ctx.saltenv, path: ctx.path, context: ctx.context, argline: ctx.argline },
            ],
          },
          { fun: `${name}.render`, jid: 'req' },
        ),
    });
  }
  return registry;
}

/**
 * The ext_pillar sources: brine's, then the plugins'. The configured arguments bind as Salt's do
 * (see extPillarArgs).
 */
export function extPillarsOf(runtime: PluginRuntime): ExtPillarRegistry {
  const registry = new ExtPillarRegistry();
  for (const name of runtime.plugins.registry.moduleNames('ext_pillar')) {
    registry.add({
      name,
      pillar: async (args, ctx) => {
        const data = await runtime.invoke(
          'ext_pillar',
          `${name}.ext_pillar`,
          {
            arg: extPillarArgs(args),
            extra: [{ minionId: ctx.minionId, grains: ctx.grains, pillar: ctx.pillar, opts: ctx.opts }],
          },
          { fun: `${name}.ext_pillar`, jid: 'req' },
        );
        return isDict(data) ? data : {};
      },
    });
  }
  return registry;
}
