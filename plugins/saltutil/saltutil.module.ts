import {
  Fn,
  arg,
  IConfig,
  IJobContext,
  IMinionControl,
  IPillar,
  InvocationError,
  Module,
  inject,
  isTrue,
  type ExtensionForm,
  type RunningJob,
} from 'brine/plugin';

const SIGKILL = 9;

/** Salt's `extmod_whitelist`/`extmod_blacklist`: a comma list for one form, or a dict of form -> names. */
function nameFilter(value: unknown, form: ExtensionForm, what: string): string[] | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value === 'string') return value.split(',').map((s) => s.trim()).filter(Boolean);
  if (Array.isArray(value)) return value.map(String);
  if (typeof value === 'object') {
    const entry = (value as Record<string, unknown>)[form];
    return entry === undefined ? undefined : nameFilter(entry, form, what);
  }
  throw new InvocationError(`${what} must be a comma-separated string or a dictionary of lists`);
}

function toJid(jid: unknown): string {
  if (typeof jid === 'number' && Number.isInteger(jid)) return String(jid);
  if (typeof jid !== 'string' || jid === '') throw new InvocationError('jid must be a job id such as 20240101120000123456');
  return jid;
}

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
    if (typeof value === 'string') return value.split(',').map((s) => s.trim()).filter(Boolean);
    if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return value as string[];
    throw new InvocationError('saltenv must be a name, a comma-separated list of names, or a list');
  }

  private async sync(form: ExtensionForm, saltenv: unknown, whitelist: unknown, blacklist: unknown): Promise<{ changed: string[]; touched: boolean }> {
    return this.control.syncExtensions(form, this.saltenvs(saltenv), {
      whitelist: nameFilter(whitelist, form, 'extmod_whitelist'),
      blacklist: nameFilter(blacklist, form, 'extmod_blacklist'),
    });
  }

  @Fn({ summary: "Sync execution modules from salt://_modules (.ts/.js) to the minion and reload them; returns the synced names", examples: ["salt '*' saltutil.sync_modules", "salt '*' saltutil.sync_modules saltenv=dev refresh=False"] })
  async sync_modules(saltenv: unknown = null, refresh: unknown = true, extmod_whitelist: unknown = null, extmod_blacklist: unknown = null): Promise<string[]> {
    const { changed, touched } = await this.sync('modules', saltenv, extmod_whitelist, extmod_blacklist);
    if (touched && isTrue(refresh)) await this.control.reloadModules();
    return changed;
  }

  @Fn({ summary: "Sync grains providers from salt://_grains to the minion, then refresh grains and modules", examples: ["salt '*' saltutil.sync_grains"] })
  async sync_grains(saltenv: unknown = null, refresh: unknown = true, extmod_whitelist: unknown = null, extmod_blacklist: unknown = null): Promise<string[]> {
    const { changed, touched } = await this.sync('grains', saltenv, extmod_whitelist, extmod_blacklist);
    if (touched && isTrue(refresh)) await this.control.reloadModules();
    return changed;
  }

  @Fn({ summary: "Sync everything brine can sync (modules, grains); returns {modules: [...], grains: [...]}", examples: ["salt '*' saltutil.sync_all"] })
  async sync_all(saltenv: unknown = null, refresh: unknown = true, extmod_whitelist: unknown = null, extmod_blacklist: unknown = null): Promise<Record<string, string[]>> {
    const modules = await this.sync('modules', saltenv, extmod_whitelist, extmod_blacklist);
    const grains = await this.sync('grains', saltenv, extmod_whitelist, extmod_blacklist);
    if ((modules.touched || grains.touched) && isTrue(refresh)) await this.control.reloadModules();
    return { modules: modules.changed, grains: grains.changed };
  }

  @Fn({ summary: "Reload every module, as after a sync", examples: ["salt '*' saltutil.refresh_modules"] })
  async refresh_modules(): Promise<boolean> {
    await this.control.reloadModules();
    return true;
  }

  @Fn({ summary: "Recompute the grains, then reload the modules (their availability may depend on grains)", examples: ["salt '*' saltutil.refresh_grains"] })
  async refresh_grains(): Promise<boolean> {
    await this.control.refreshGrains();
    await this.control.reloadModules();
    return true;
  }

  @Fn({
    summary: "Compile the minion's pillar again (from the master, or locally with file_client: local) and keep it",
    description: 'brine always waits for the new pillar (Salt with wait=True): a failure is reported, not lost. clean_cache is accepted for Salt command lines; the minion keeps no pillar cache on disk.',
    examples: ["salt '*' saltutil.refresh_pillar"],
    args: { wait: arg.boolean({ default: false }), clean_cache: arg.boolean({ default: true }) },
  })
  async refresh_pillar(): Promise<boolean> {
    await this.pillar.refresh();
    return true;
  }

  @Fn({ summary: "Return the data of the running jobs, this one excepted", examples: ["salt '*' saltutil.running"] })
  running(): RunningJob[] {
    return this.control.runningJobs().filter((j) => j.jid !== this.job.jid);
  }

  @Fn({ summary: "Return the data of a running job, or {} when it is not running", examples: ["salt '*' saltutil.find_job <job id>"] })
  find_job(jid: unknown): RunningJob | Record<string, never> {
    const id = toJid(jid);
    return this.running().find((j) => j.jid === id) ?? {};
  }

  @Fn({ summary: "Kill a running job (its commands' process groups get SIGKILL)", examples: ["salt '*' saltutil.kill_job <job id>"] })
  kill_job(jid: unknown): string {
    return this.signalJob(toJid(jid), SIGKILL);
  }

  @Fn({ summary: "Terminate a running job; jobs run inside the minion, so this aborts it like kill_job", examples: ["salt '*' saltutil.term_job <job id>"] })
  term_job(jid: unknown): string {
    return this.signalJob(toJid(jid), 15);
  }

  private signalJob(jid: string, signal: number): string {
    if (jid === this.job.jid) return '';
    const data = this.control.killJob(jid);
    return data ? `Signal ${signal} sent to job ${jid} at pid ${data.pid}` : '';
  }
}
