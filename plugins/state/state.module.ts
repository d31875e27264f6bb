import { Fn, IJobContext, inject, IPillar, ISalt, IStates, isTrue, Module, type StateRunOptions, type StateRunReturn } from 'brine/plugin';

type Kw = Record<string, unknown>;

/** `a,b` or a list -> SLS names. */
function modsOf(mods: unknown): string[] {
  if (mods === undefined || mods === null || mods === '') return [];
  if (Array.isArray(mods)) return mods.map(String);
  return String(mods)
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

function pillarOf(p: unknown): Record<string, unknown> | undefined {
  if (p === undefined || p === null || p === '') return undefined;
  if (typeof p === 'object' && !Array.isArray(p)) return p as Record<string, unknown>;
  throw new Error('Pillar data must be formatted as a dictionary, unless pillar_enc is specified.');
}

/** Salt's `state` execution module: apply SLS files and the highstate, and show what they compile to. */
@Module('state')
export class StateExecModule {
  constructor(
    @inject(IStates) private readonly states: IStates,
    @inject(IJobContext) private readonly job: IJobContext,
    @inject(ISalt) private readonly salt: ISalt,
    @inject(IPillar) private readonly pillar: IPillar,
  ) {}

  /** The run's options; the pillar is compiled afresh with `pillar=` over it, as Salt's State does. */
  private async options(kw: Kw): Promise<StateRunOptions> {
    const saltenv = kw.saltenv === undefined ? undefined : String(kw.saltenv);
    return {
      test: kw.test === undefined ? undefined : isTrue(kw.test),
      saltenv,
      pillar: await this.pillar.compile({ override: pillarOf(kw.pillar), saltenv }),
      exclude: kw.exclude,
      caller: this.salt,
    };
  }

  private finish(ret: StateRunReturn): StateRunReturn {
    this.job.retcode = this.states.retcode(ret);
    return ret;
  }

  @Fn({ summary: "Apply SLS files, or the highstate without any", examples: ["salt '*' state.apply webserver,db test=True"], outputter: 'highstate', kwargs: true })
  async apply(mods: unknown = undefined, kwargs: Kw = {}): Promise<StateRunReturn> {
    const list = modsOf(mods);
    return this.finish(list.length ? await this.states.sls(list, await this.options(kwargs)) : await this.states.highstate(await this.options(kwargs)));
  }

  @Fn({ summary: "Apply SLS files", examples: ["salt '*' state.sls webserver"], outputter: 'highstate', kwargs: true })
  async sls(mods: unknown = undefined, kwargs: Kw = {}): Promise<StateRunReturn> {
    const list = modsOf(mods);
    return this.finish(list.length ? await this.states.sls(list, await this.options(kwargs)) : await this.states.highstate(await this.options(kwargs)));
  }

  @Fn({ summary: "Apply the highstate (the top file's SLS files)", examples: ["salt '*' state.highstate"], outputter: 'highstate', kwargs: true })
  async highstate(kwargs: Kw = {}): Promise<StateRunReturn> {
    return this.finish(await this.states.highstate(await this.options(kwargs)));
  }

  @Fn({ summary: "Apply the highstate in test mode", examples: ["salt '*' state.test"], outputter: 'highstate', kwargs: true })
  async test(mods: unknown = undefined, kwargs: Kw = {}): Promise<StateRunReturn> {
    return this.apply(mods, { ...kwargs, test: true });
  }

  @Fn({ summary: "Run one state function", examples: ["salt '*' state.single file.managed /etc/motd contents=hi"], outputter: 'highstate', kwargs: true })
  async single(fun: string, name: string, kwargs: Kw = {}): Promise<StateRunReturn> {
    const args: Kw = {};
    for (const [k, v] of Object.entries(kwargs)) if (!k.startsWith('__') && !['test', 'saltenv', 'pillar', 'queue'].includes(k)) args[k] = v;
    return this.finish(await this.states.single(fun, name, args, await this.options(kwargs)));
  }

  @Fn({ summary: "Run one ID of SLS files", examples: ["salt '*' state.sls_id my_id webserver"], outputter: 'highstate', kwargs: true })
  async sls_id(id: string, mods: unknown, kwargs: Kw = {}): Promise<StateRunReturn> {
    return this.finish(await this.states.slsId(id, modsOf(mods), await this.options(kwargs)));
  }

  @Fn({ summary: "The high data of SLS files", examples: ["salt '*' state.show_sls webserver"], kwargs: true })
  async show_sls(mods: unknown, kwargs: Kw = {}): Promise<unknown> {
    return this.shown(await this.states.showSls(modsOf(mods), await this.options(kwargs)));
  }

  @Fn({ summary: "The low chunks of SLS files", examples: ["salt '*' state.show_low_sls webserver"], kwargs: true })
  async show_low_sls(mods: unknown, kwargs: Kw = {}): Promise<unknown> {
    return this.shown(await this.states.showLowSls(modsOf(mods), await this.options(kwargs)));
  }

  @Fn({ summary: "The top file's matches for this minion", examples: ["salt '*' state.show_top"], kwargs: true })
  async show_top(kwargs: Kw = {}): Promise<unknown> {
    return this.shown(await this.states.showTop(await this.options(kwargs)));
  }

  @Fn({ summary: "The highstate's high data", examples: ["salt '*' state.show_highstate"], kwargs: true })
  async show_highstate(kwargs: Kw = {}): Promise<unknown> {
    return this.shown(await this.states.showHighstate(await this.options(kwargs)));
  }

  @Fn({ summary: "The highstate's low chunks", examples: ["salt '*' state.show_lowstate"], kwargs: true })
  async show_lowstate(kwargs: Kw = {}): Promise<unknown> {
    return this.shown(await this.states.showLowstate(await this.options(kwargs)));
  }

  private shown(ret: unknown): unknown {
    if (Array.isArray(ret) && ret.length > 0 && ret.every((e) => typeof e === 'string')) this.job.retcode = 1;
    return ret;
  }
}
