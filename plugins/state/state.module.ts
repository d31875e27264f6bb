import {
  arg,
  Fn,
  IConfig,
  IJobContext,
  IMinionControl,
  inject,
  InvocationError,
  IPillar,
  ISalt,
  IStates,
  Module,
  type StateRunOptions,
  type StateRunReturn,
} from 'brine/plugin';
import { checkQueue, runningStates, type QueueContext } from './state-queue';

/** The options every state run takes (Salt's names); others (`concurrent`, ...) go to `kwargs`. */
const RUN = {
  test: arg.boolean({ optional: true, description: 'Report what would change, change nothing' }),
  saltenv: arg.string({ optional: true, description: 'The environment of the SLS files' }),
  pillar: arg.any({ optional: true, description: 'Pillar data merged over the compiled pillar' }),
  exclude: arg.any({ optional: true, description: 'SLS files or IDs to leave out' }),
  queue: arg.any({
    optional: true,
    description: 'True: wait for the state runs going on (a number: unless that many wait already); else they refuse this one',
  }),
};
interface Run {
  test?: boolean;
  saltenv?: string;
  pillar?: unknown;
  exclude?: unknown;
  queue?: unknown;
  kwargs: Record<string, unknown>;
}
/** SLS names: a list, or `a,b` (Salt's split_input). */
const MODS = arg.list({ of: arg.string(), split: true, description: 'SLS names, a list or comma-separated' });
const SOME_MODS = arg.list({ of: arg.string(), split: true, optional: true, description: 'SLS names; none = the highstate' });
const mods = (list: string[] | undefined): string[] => (list ?? []).filter((m) => m !== '');

function pillarOf(p: unknown): Record<string, unknown> | undefined {
  if (p === undefined || p === null || p === '') return undefined;
  if (typeof p === 'object' && !Array.isArray(p)) return p as Record<string, unknown>;
  throw new InvocationError('Pillar data must be formatted as a dictionary, unless pillar_enc is specified.');
}

/** Salt's `state` execution module: apply SLS files and the highstate, and show what they compile to. */
@Module('state')
export class StateExecModule {
  constructor(
    @inject(IStates) private readonly states: IStates,
    @inject(IJobContext) private readonly job: IJobContext,
    @inject(ISalt) private readonly salt: ISalt,
    @inject(IPillar) private readonly pillar: IPillar,
    @inject(IConfig) private readonly config: IConfig,
    @inject(IMinionControl, { optional: true }) private readonly control: IMinionControl | undefined,
  ) {}

  private get queueContext(): QueueContext {
    return { control: this.control, jid: this.job.jid, signal: this.job.signal };
  }

  /**
   * Salt's _check_queue before a state function: the lines naming the state jobs that refuse
   * this one (retcode 1), or undefined once it may run (after waiting with `queue`).
   */
  private async conflict(o: Run): Promise<string[] | undefined> {
    const queue = o.queue ?? this.config.get<unknown>('state_queue', false);
    const conflict = await checkQueue(this.queueContext, queue, o.kwargs.concurrent === true);
    if (conflict) this.job.retcode = 1;
    return conflict;
  }

  /** The run's options; the pillar is compiled afresh with `pillar=` over it, as Salt's State does. */
  private async options(o: Run): Promise<StateRunOptions> {
    const { saltenv } = o;
    return {
      test: o.test,
      saltenv,
      pillar: await this.pillar.compile({ override: pillarOf(o.pillar), saltenv }),
      exclude: o.exclude,
      caller: this.salt,
    };
  }

  private finish(ret: StateRunReturn): StateRunReturn {
    this.job.retcode = this.states.retcode(ret);
    return ret;
  }

  @Fn({
    summary: 'Apply SLS files, or the highstate without any',
    examples: ["salt '*' state.apply webserver,db test=True"],
    outputter: 'highstate',
    args: { mods: SOME_MODS, ...RUN },
    kwargs: true,
  })
  async apply(a: Run & { mods?: string[] }): Promise<StateRunReturn> {
    const conflict = await this.conflict(a);
    if (conflict) return conflict;
    const list = mods(a.mods);
    return this.finish(
      list.length ? await this.states.sls(list, await this.options(a)) : await this.states.highstate(await this.options(a)),
    );
  }

  @Fn({
    summary: 'Apply SLS files',
    examples: ["salt '*' state.sls webserver"],
    outputter: 'highstate',
    args: { mods: SOME_MODS, ...RUN },
    kwargs: true,
  })
  async sls(a: Run & { mods?: string[] }): Promise<StateRunReturn> {
    return this.apply(a);
  }

  @Fn({
    summary: "Apply the highstate (the top file's SLS files)",
    examples: ["salt '*' state.highstate"],
    outputter: 'highstate',
    args: RUN,
    kwargs: true,
  })
  async highstate(a: Run): Promise<StateRunReturn> {
    const conflict = await this.conflict(a);
    if (conflict) return conflict;
    return this.finish(await this.states.highstate(await this.options(a)));
  }

  @Fn({
    summary: 'Apply SLS files, or the highstate, in test mode',
    examples: ["salt '*' state.test"],
    outputter: 'highstate',
    args: { mods: SOME_MODS, ...RUN },
    kwargs: true,
  })
  async test(a: Run & { mods?: string[] }): Promise<StateRunReturn> {
    return this.apply({ ...a, test: true });
  }

  @Fn({
    summary: 'Run one state function',
    description: "Keywords other than the run options are the state's arguments.",
    examples: ["salt '*' state.single file.managed /etc/motd contents=hi"],
    outputter: 'highstate',
    args: { fun: arg.string({ nonEmpty: true }), name: arg.string(), ...RUN },
    kwargs: true,
  })
  async single(a: Run & { fun: string; name: string }): Promise<StateRunReturn> {
    const conflict = await this.conflict(a);
    if (conflict) return conflict;
    const args: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(a.kwargs)) if (!k.startsWith('__') && k !== 'concurrent') args[k] = v;
    return this.finish(await this.states.single(a.fun, a.name, args, await this.options(a)));
  }

  @Fn({
    summary: 'Run one ID of SLS files',
    examples: ["salt '*' state.sls_id my_id webserver"],
    outputter: 'highstate',
    args: { id_: arg.string(), mods: MODS, ...RUN },
    kwargs: true,
  })
  async sls_id(a: Run & { id_: string; mods: string[] }): Promise<StateRunReturn> {
    const conflict = await this.conflict(a);
    if (conflict) return conflict;
    return this.finish(await this.states.slsId(a.id_, mods(a.mods), await this.options(a)));
  }

  @Fn({
    summary: 'The high data of SLS files',
    examples: ["salt '*' state.show_sls webserver"],
    args: { mods: MODS, ...RUN },
    kwargs: true,
  })
  async show_sls(a: Run & { mods: string[] }): Promise<unknown> {
    return (await this.conflict(a)) ?? this.shown(await this.states.showSls(mods(a.mods), await this.options(a)));
  }

  @Fn({
    summary: 'The low chunks of SLS files',
    examples: ["salt '*' state.show_low_sls webserver"],
    args: { mods: MODS, ...RUN },
    kwargs: true,
  })
  async show_low_sls(a: Run & { mods: string[] }): Promise<unknown> {
    return (await this.conflict(a)) ?? this.shown(await this.states.showLowSls(mods(a.mods), await this.options(a)));
  }

  @Fn({ summary: "The top file's matches for this minion", examples: ["salt '*' state.show_top"], args: RUN, kwargs: true })
  async show_top(a: Run): Promise<unknown> {
    return (await this.conflict(a)) ?? this.shown(await this.states.showTop(await this.options(a)));
  }

  @Fn({ summary: "The highstate's high data", examples: ["salt '*' state.show_highstate"], args: RUN, kwargs: true })
  async show_highstate(a: Run): Promise<unknown> {
    return (await this.conflict(a)) ?? this.shown(await this.states.showHighstate(await this.options(a)));
  }

  @Fn({ summary: "The highstate's low chunks", examples: ["salt '*' state.show_lowstate"], args: RUN, kwargs: true })
  async show_lowstate(a: Run): Promise<unknown> {
    return (await this.conflict(a)) ?? this.shown(await this.states.showLowstate(await this.options(a)));
  }

  @Fn({
    summary: 'The state runs going on on this minion, one line each',
    description: 'A state function called while one runs is refused with these lines, unless queue=True.',
    examples: ["salt '*' state.running"],
    args: { concurrent: arg.boolean({ default: false, description: 'Concurrent runs are allowed: report none' }) },
  })
  running(a: { concurrent: boolean }): string[] {
    return runningStates(this.queueContext, a.concurrent);
  }

  private shown(ret: unknown): unknown {
    if (Array.isArray(ret) && ret.length > 0 && ret.every((e) => typeof e === 'string')) this.job.retcode = 1;
    return ret;
  }
}
