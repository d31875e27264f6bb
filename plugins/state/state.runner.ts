import { arg, Fn, IConfig, inject, InvocationError, IPillar, IStates, Runner } from 'brine/plugin';
import { hostname } from 'node:os';

/** SLS names: a list, or `a,b` (Salt's split_input). */
const MODS = arg.list({ of: arg.string(), split: true, description: 'SLS names (globs allowed), a list or comma-separated' });

/** state.orchestrate's arguments, as Salt's runner takes them. */
const ORCHESTRATE_ARGS = {
  mods: MODS,
  saltenv: arg.string({ default: 'base' }),
  test: arg.boolean({ optional: true }),
  exclude: arg.any({ optional: true }),
  pillar: arg.any({ optional: true }),
  pillarenv: arg.string({ optional: true }),
  pillar_enc: arg.string({ optional: true }),
  orchestration_jid: arg.string({ optional: true }),
};

interface OrchestrateArgs {
  mods: string[];
  saltenv: string;
  test?: boolean;
  exclude?: unknown;
  pillar?: unknown;
  pillar_enc?: string;
}

/**
 * Salt's state runner (salt/runners/state.py): orchestrations, run or only shown. The master
 * compiles as Salt's MasterMinion does: its own file_roots, its own pillar (for the id
 * `<host>_master`), and answers under that id; the run's `salt.*` states publish jobs to minions.
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
    summary: 'Execute a state run from the master, used as a powerful orchestration system',
    description:
      "As Salt's: the SLS files are compiled from the master's file_roots with its own pillar, for the id `<host>_master`, and " +
      'run on the master; their `salt.state` and `salt.function` states publish jobs to minions. The answer is the run under ' +
      'that id, printed with the highstate outputter; salt-run exits 1 when a state failed.',
    examples: [
      'salt-run state.orchestrate webserver',
      'salt-run state.orchestrate webserver saltenv=dev test=True',
      'salt-run state.orch deploy',
    ],
    args: ORCHESTRATE_ARGS,
  })
  async orchestrate(a: OrchestrateArgs): Promise<{ data: Record<string, unknown>; outputter: string; retcode: number }> {
    const pillar = await this.pillarFor(a.pillar, a.pillar_enc, a.saltenv);
    const running = await this.states.sls(
      a.mods.filter((m) => m !== ''),
      { saltenv: a.saltenv, test: a.test, pillar, exclude: a.exclude },
    );
    // Salt's check_result over the run: 1 when it failed or did not compile.
    const ok = !Array.isArray(running) && Object.keys(running).length > 0 && Object.values(running).every((r) => r.result !== false);
    return { data: { [this.masterId()]: running }, outputter: 'highstate', retcode: ok ? 0 : 1 };
  }

  @Fn({
    summary: 'Execute a state run from the master (state.orchestrate)',
    examples: ['salt-run state.orch deploy'],
    args: ORCHESTRATE_ARGS,
  })
  orch(a: OrchestrateArgs): Promise<{ data: Record<string, unknown>; outputter: string; retcode: number }> {
    return this.orchestrate(a);
  }

  /** The master's own pillar, with `pillar=` over it (Salt refuses any other shape). */
  private async pillarFor(given: unknown, pillarEnc: string | undefined, saltenv: string): Promise<Record<string, unknown>> {
    if (pillarEnc !== undefined) throw new InvocationError('pillar_enc is not supported: pass the pillar as plain data');
    if (given !== undefined && given !== null && (typeof given !== 'object' || Array.isArray(given)))
      throw new InvocationError('Pillar data must be formatted as a dictionary, unless pillar_enc is specified.');
    return this.pillar.compile({ override: (given ?? undefined) as Record<string, unknown> | undefined, saltenv });
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
    const pillar = await this.pillarFor(a.pillar, a.pillar_enc, a.saltenv);
    const shown = await this.states.showSls(
      a.mods.filter((m) => m !== ''),
      { saltenv: a.saltenv, test: a.test, pillar },
    );
    return { [this.masterId()]: shown };
  }
}
