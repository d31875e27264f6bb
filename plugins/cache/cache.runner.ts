import { Fn, IMaster, Runner, arg, inject } from 'brine/plugin';

const ARGS = { tgt: arg.any({ default: '*' }), tgt_type: arg.string({ default: 'glob' }) };

/**
 * Salt's cache runner (salt/runners/cache.py): what the master's minion data cache holds of each
 * minion, without asking the minions.
 */
@Runner('cache', { doc: "The master's minion data cache: the grains and pillar it holds of each minion" })
export class CacheRunner {
  constructor(@inject(IMaster) private readonly master: IMaster) {}

  private cached(tgt: unknown, tgtType: string, read: (id: string) => Record<string, unknown>): Record<string, unknown> {
    const target = tgt === null ? '*' : Array.isArray(tgt) ? tgt.map(String) : String(tgt);
    return Object.fromEntries(this.master.match(target, tgtType).map((id) => [id, read(id)]));
  }

  @Fn({
    summary: 'Return cached grains of the targeted minions.',
    examples: ['salt-run cache.grains', "salt-run cache.grains tgt='web*'"],
    args: ARGS,
  })
  grains({ tgt, tgt_type }: { tgt: unknown; tgt_type: string }): Record<string, unknown> {
    return this.cached(tgt, tgt_type, (id) => this.master.cachedGrains(id));
  }

  @Fn({
    summary: 'Return cached pillars of the targeted minions.',
    examples: ['salt-run cache.pillar', "salt-run cache.pillar tgt='db*'"],
    args: ARGS,
  })
  pillar({ tgt, tgt_type }: { tgt: unknown; tgt_type: string }): Record<string, unknown> {
    return this.cached(tgt, tgt_type, (id) => this.master.cachedPillar(id));
  }
}
