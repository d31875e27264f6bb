import { arg, Fn, IConfig, inject, InvocationError, IPillar, IStates, Runner } from 'brine/plugin';
import { hostname } from 'node:os';

/** SLS names: a list, or `a,b` (Salt's split_input). */
const MODS = arg.list({ of: arg.string(), split: true, description: 'SLS names (globs allowed), a list or comma-separated' });

/**
 * Salt's state runner (salt/runners/state.py), the part that only reads: what an orchestration
 * compiles to on the master. The master compiles as Salt's MasterMinion does: its own file_roots,
 * its own pillar (for the id `<host>_master`), and answers under that id.
 */
@Runner('state', { doc: 'Execute orchestration functions' })
export class StateRunner {
  constructor(
    @inject(IStates) private readonly states: IStates,
    @inject(IPillar) private readonly pillar: IPillar,
    @inject(IConfig) private readonly config: IConfig,
  ) {}

  /** Salt's master id: the configured `id`, else `<hostname>_master`. */
  private masterId(): string {
    const id = this.config.get<unknown>('id', null);
    return typeof id === 'string' && id !== '' ? id : `${hostname()}_master`;
  }

  @Fn({
    summary: 'Display the state data from a specific sls, or list of sls files, after being rendered using the master minion',
    examples: ['salt-run state.orchestrate_show_sls orch.deploy', "salt-run state.orchestrate_show_sls '*'"],
    args: {
      mods: MODS,
      saltenv: arg.string({ default: 'base' }),
      test: arg.boolean({ optional: true }),
      queue: arg.boolean({ default: false }),
      pillar: arg.any({ optional: true }),
      pillarenv: arg.string({ optional: true }),
      pillar_enc: arg.string({ optional: true }),
    },
  })
  async orchestrate_show_sls(a: {
    mods: string[];
    saltenv: string;
    test?: boolean;
    pillar?: unknown;
    pillar_enc?: string;
  }): Promise<Record<string, unknown>> {
    if (a.pillar_enc !== undefined) throw new InvocationError('pillar_enc is not supported: pass the pillar as plain data');
    if (a.pillar !== undefined && a.pillar !== null && (typeof a.pillar !== 'object' || Array.isArray(a.pillar)))
      throw new InvocationError('Pillar data must be formatted as a dictionary, unless pillar_enc is specified.');
    const override = (a.pillar ?? undefined) as Record<string, unknown> | undefined;
    const pillar = await this.pillar.compile({ override, saltenv: a.saltenv });
    const shown = await this.states.showSls(
      a.mods.filter((m) => m !== ''),
      { saltenv: a.saltenv, test: a.test, pillar },
    );
    return { [this.masterId()]: shown };
  }
}
