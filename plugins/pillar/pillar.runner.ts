import { Fn, IMaster, Runner, arg, inject } from 'brine/plugin';

/**
 * Salt's pillar runner (salt/runners/pillar.py): the master's pillar compiler run for a minion
 * from the master's host, with the grains the master cached for it, without asking the minion
 * and without changing what the master cached.
 */
@Runner('pillar', { doc: 'Functions to interact with the pillar compiler on the master' })
export class PillarRunner {
  constructor(@inject(IMaster) private readonly master: IMaster) {}

  @Fn({
    summary: 'Returns the compiled top data for pillar for a specific minion. If no minion is specified, we use the first minion we find.',
    examples: ['salt-run pillar.show_top', 'salt-run pillar.show_top web1 saltenv=base'],
    args: { minion: arg.any({ optional: true }), saltenv: arg.string({ default: 'base' }) },
  })
  async show_top({ minion, saltenv }: { minion?: unknown; saltenv: string }): Promise<unknown> {
    const id = minion === undefined || minion === null || minion === '' ? this.firstCached() : String(minion);
    const grains = id === undefined ? {} : this.master.cachedGrains(id);
    const { top, errors } = await this.master.pillarTop({ minionId: id ?? '', grains, saltenv });
    // Salt answers the render errors instead of the top when there are any.
    return errors.length > 0 ? errors : top;
  }

  @Fn({
    summary:
      'Returns the compiled pillar either of a specific minion or just the global available pillars (minion `*`). ' +
      'saltenv= and pillarenv= choose the environments; any other keyword argument is set as a grain for the compile.',
    examples: [
      "salt-run pillar.show_pillar 'www.example.com'",
      'salt-run pillar.show_pillar',
      "salt-run pillar.show_pillar 'pillarenv=dev'",
    ],
    args: { minion: arg.any({ default: '*' }) },
    kwargs: true,
  })
  async show_pillar({ minion, kwargs }: { minion: unknown; kwargs: Record<string, unknown> }): Promise<Record<string, unknown>> {
    const id = String(minion ?? '*');
    const cached = this.master.cachedGrains(id);
    // A minion the master holds no grains of (and `*`) compiles with its id as its fqdn, as Salt's.
    const grains: Record<string, unknown> = Object.keys(cached).length > 0 ? { ...cached } : { fqdn: id };
    let saltenv = 'base';
    let pillarenv: string | null = null;
    for (const [key, value] of Object.entries(kwargs)) {
      if (key.startsWith('__')) continue; // the job's own data, not the caller's
      if (key === 'saltenv') saltenv = String(value);
      else if (key === 'pillarenv') pillarenv = value === null ? null : String(value);
      else grains[key] = value;
    }
    return this.master.compilePillar({ minionId: id, grains, saltenv, pillarenv });
  }

  /** The first accepted minion the master holds grains of (Salt's get_minion_data with no id). */
  private firstCached(): string | undefined {
    return this.master.acceptedMinions().find((id) => Object.keys(this.master.cachedGrains(id)).length > 0);
  }
}
