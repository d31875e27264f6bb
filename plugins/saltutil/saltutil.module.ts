import {
  Fn,
  IConfig,
  IJobContext,
  IMinionControl,
  IPillar,
  InvocationError,
  Module,
  arg,
  inject,
  type ArgDef,
  type ExtensionForm,
  type RunningJob,
} from 'brine/plugin';

const SIGKILL = 9;

/** Salt's `extmod_whitelist`/`extmod_blacklist`: a comma list for one form, or a dict of form -> names. */
function nameFilter(value: unknown, form: ExtensionForm, what: string): string[] | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value === 'string')
    return value
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
  if (Array.isArray(value)) return value.map(String);
  if (typeof value === 'object') {
    const entry = (value as Record<string, unknown>)[form];
    return entry === undefined ? undefined : nameFilter(entry, form, what);
  }
  throw new InvocationError(`${what} must be a comma-separated string or a dictionary of lists`);
}

/** The arguments of every saltutil.sync_* function, as Salt's. */
const SYNC_ARGS = {
  saltenv: arg.any({ optional: true }),
  refresh: arg.boolean({ default: true }),
  extmod_whitelist: arg.any({ optional: true }),
  extmod_blacklist: arg.any({ optional: true }),
};
interface SyncArgs {
  saltenv?: unknown;
  refresh: boolean;
  extmod_whitelist?: unknown;
  extmod_blacklist?: unknown;
}

/** A job id: digits (Salt jids are 20 digits; a number is read as its text). */
const JID: { jid: ArgDef<string, true> } = { jid: arg.string({ nonEmpty: true }) };

@Module('saltutil', { doc: 'The minion itself: running jobs, module and grains refresh, sync of custom modules from the master' })
export class SaltutilModule {
  constructor(
    @inject(IMinionControl) private readonly control: IMinionControl,
    @inject(IJobContext) private readonly job: IJobContext,
    @inject(IConfig) private readonly config: IConfig,
    @inject(IPillar) private readonly pillar: IPillar,
  ) {}

  /** Salt: an explicit saltenv (string with commas, or list), else the minion's saltenv, else base. */
  private saltenvs(saltenv: unknown): string[] {
    const value = saltenv ?? this.config.get<unknown>('saltenv', null) ?? 'base';
    if (typeof value === 'string')
      return value
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
    if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return value as string[];
    throw new InvocationError('saltenv must be a name, a comma-separated list of names, or a list');
  }

  private async sync(form: ExtensionForm, a: SyncArgs): Promise<{ changed: string[]; touched: boolean }> {
    return this.control.syncExtensions(form, this.saltenvs(a.saltenv), {
      whitelist: nameFilter(a.extmod_whitelist, form, 'extmod_whitelist'),
      blacklist: nameFilter(a.extmod_blacklist, form, 'extmod_blacklist'),
    });
  }

  @Fn({
    summary: 'Sync execution modules from salt://_modules (.ts/.js) to the minion and reload them',
    description: 'Returns the synced names.',
    examples: ["salt '*' saltutil.sync_modules", "salt '*' saltutil.sync_modules saltenv=dev refresh=False"],
    args: SYNC_ARGS,
  })
  async sync_modules(a: SyncArgs): Promise<string[]> {
    const { changed, touched } = await this.sync('modules', a);
    if (touched && a.refresh) await this.control.reloadModules();
    return changed;
  }

  @Fn({
    summary: 'Sync grains providers from salt://_grains to the minion, then refresh grains and modules',
    examples: ["salt '*' saltutil.sync_grains"],
    args: SYNC_ARGS,
  })
  async sync_grains(a: SyncArgs): Promise<string[]> {
    const { changed, touched } = await this.sync('grains', a);
    if (touched && a.refresh) await this.control.reloadModules();
    return changed;
  }

  @Fn({
    summary: 'Sync everything brine can sync (modules, grains)',
    description: 'Returns {modules: [...], grains: [...]}.',
    examples: ["salt '*' saltutil.sync_all"],
    args: SYNC_ARGS,
  })
  async sync_all(a: SyncArgs): Promise<Record<string, string[]>> {
    const modules = await this.sync('modules', a);
    const grains = await this.sync('grains', a);
    if ((modules.touched || grains.touched) && a.refresh) await this.control.reloadModules();
    return { modules: modules.changed, grains: grains.changed };
  }

  @Fn({ args: {}, summary: 'Reload every module, as after a sync', examples: ["salt '*' saltutil.refresh_modules"] })
  async refresh_modules(): Promise<boolean> {
    await this.control.reloadModules();
    return true;
  }

  @Fn({
    args: {},
    summary: 'Recompute the grains, then reload the modules (their availability may depend on grains)',
    examples: ["salt '*' saltutil.refresh_grains"],
  })
  async refresh_grains(): Promise<boolean> {
    await this.control.refreshGrains();
    await this.control.reloadModules();
    return true;
  }

  @Fn({
    summary: "Compile the minion's pillar again (from the master, or locally with file_client: local) and keep it",
    description:
      'brine always waits for the new pillar (Salt with wait=True): a failure is reported, not lost. clean_cache is accepted for Salt command lines; the minion keeps no pillar cache on disk.',
    examples: ["salt '*' saltutil.refresh_pillar"],
    args: { wait: arg.boolean({ default: false }), clean_cache: arg.boolean({ default: true }) },
  })
  async refresh_pillar(): Promise<boolean> {
    await this.pillar.refresh();
    return true;
  }

  @Fn({ args: {}, summary: 'Return the data of the running jobs, this one excepted', examples: ["salt '*' saltutil.running"] })
  running(): RunningJob[] {
    return this.control.runningJobs().filter((j) => j.jid !== this.job.jid);
  }

  @Fn({
    summary: 'Return the data of a running job, or {} when it is not running',
    examples: ["salt '*' saltutil.find_job <job id>"],
    args: JID,
  })
  find_job({ jid }: { jid: string }): RunningJob | Record<string, never> {
    return this.running().find((j) => j.jid === jid) ?? {};
  }

  @Fn({
    summary: "Kill a running job (its commands' process groups get SIGKILL)",
    examples: ["salt '*' saltutil.kill_job <job id>"],
    args: JID,
  })
  kill_job({ jid }: { jid: string }): string {
    return this.signalJob(jid, SIGKILL);
  }

  @Fn({
    summary: 'Terminate a running job; jobs run inside the minion, so this aborts it like kill_job',
    examples: ["salt '*' saltutil.term_job <job id>"],
    args: JID,
  })
  term_job({ jid }: { jid: string }): string {
    return this.signalJob(jid, 15);
  }

  private signalJob(jid: string, signal: number): string {
    if (jid === this.job.jid) return '';
    const data = this.control.killJob(jid);
    return data ? `Signal ${signal} sent to job ${jid} at pid ${data.pid}` : '';
  }
}
