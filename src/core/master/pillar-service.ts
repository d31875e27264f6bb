import { compilePillar, type ExtPillarRegistry } from '../pillar';
import type { RendererRegistry, SaltCaller } from '../render';
import type { PillarRequestLoad } from '../protocol/loads';
import type { Logger } from '../log';
import type { MinionDataCache } from './minion-data-cache';

type Dict = Record<string, unknown>;

/**
 * What the master's plugins add to a compile (the daemon wires its plugin runtime here): the
 * ext_pillar sources of plugin packages, renderer plugins, and `salt['mod.fun'](...)` running the
 * master's own execution functions, as Salt's master does. `override` is the request's
 * pillar_override (what pillar.get reads during the compile).
 */
export type PillarPlugins = (
  override: Dict,
) => Promise<{ caller?: SaltCaller; extPillars?: ExtPillarRegistry; renderers?: RendererRegistry }>;

/**
 * The master's side of `_pillar`: compiles a minion's pillar (from the master's pillar_roots and
 * ext_pillar, with the grains the minion sent) for the minion the request's session belongs to,
 * never for an id the load claims. Each compile reads the files again, so a changed pillar file
 * is seen without a restart. With `minion_data_cache` (default on) the result is kept for
 * targeting (-I, I@) and survives a master restart.
 */
export class MasterPillar {
  constructor(
    private readonly opts: Dict,
    private readonly dataCache: MinionDataCache,
    private readonly log: Logger,
    private readonly plugins?: PillarPlugins,
  ) {}

  async compile(sessionId: string, req: PillarRequestLoad): Promise<Dict> {
    const extras = await this.pluginExtras(req.pillar_override ?? {});
    // Salt sets grains['id'] to the requesting minion's id; here the session's, never a claimed one.
    const grains = { ...req.grains, id: sessionId };
    const pillar = await compilePillar({
      minionId: sessionId,
      grains,
      opts: this.opts,
      saltenv: req.saltenv ?? null,
      pillarenv: req.pillarenv ?? null,
      pillarOverride: req.pillar_override,
      ...extras,
      log: {
        critical: (m) => this.log.critical(m),
        error: (m) => this.log.error(m),
        warning: (m) => this.log.warning(m),
        debug: (m) => this.log.debug(m),
      },
    });
    // Salt caches what it compiled, override included; a refresh without override replaces it.
    if (this.opts.minion_data_cache !== false) this.dataCache.update(sessionId, { grains, pillar });
    else this.dataCache.update(sessionId, { grains });
    return pillar;
  }

  /** The plugins' part; if they cannot load, the compile goes on with brine's own sources. */
  private async pluginExtras(override: Dict): Promise<Awaited<ReturnType<PillarPlugins>>> {
    if (!this.plugins) return {};
    try {
      return await this.plugins(override);
    } catch (err) {
      this.log.error(`The master's plugins could not be loaded for pillar: ${(err as Error)?.message ?? err}`);
      return {};
    }
  }
}
