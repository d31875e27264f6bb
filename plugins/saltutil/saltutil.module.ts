import { readdir, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import {
  CommandExecutionError,
  Fn,
  IConfig,
  ILogger,
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
    @inject(ILogger) private readonly log: ILogger,
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
    summary: 'Sync state modules from salt://_states (.ts/.js) to the minion and reload them',
    examples: ["salt '*' saltutil.sync_states", "salt '*' saltutil.sync_states saltenv=base,dev"],
    args: SYNC_ARGS,
  })
  async sync_states(a: SyncArgs): Promise<string[]> {
    const { changed, touched } = await this.sync('states', a);
    if (touched && a.refresh) await this.control.reloadModules();
    return changed;
  }

  @Fn({
    summary: 'Sync everything brine can sync (modules, states, grains)',
    description:
      "Returns {modules: [...], states: [...], grains: [...]}; Salt's other forms (beacons, renderers, ...) are not synced by brine.",
    examples: ["salt '*' saltutil.sync_all"],
    args: SYNC_ARGS,
  })
  async sync_all(a: SyncArgs): Promise<Record<string, string[]>> {
    const ret: Record<string, string[]> = {};
    let touched = false;
    for (const form of ['modules', 'states', 'grains'] as const) {
      const synced = await this.sync(form, a);
      ret[form] = synced.changed;
      touched ||= synced.touched;
    }
    if (touched && a.refresh) await this.control.reloadModules();
    return ret;
  }

  @Fn({
    args: {},
    summary: "Remove every file under the minion's cachedir (synced modules, cached files, ...)",
    description:
      "Salt's warning holds: the safest way is to stop the minion first. Directories stay; a file that cannot be removed stops the walk and answers False (the reason is logged).",
    examples: ["salt '*' saltutil.clear_cache"],
  })
  async clear_cache(): Promise<boolean> {
    const cachedir = this.config.get<unknown>('cachedir');
    if (typeof cachedir !== 'string' || cachedir === '')
      throw new CommandExecutionError('The minion config gives no cachedir: there is no cache to clear');
    let entries;
    try {
      // withFileTypes does not follow symbolic links: a link is removed, not what it points to.
      entries = await readdir(cachedir, { withFileTypes: true, recursive: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return true;
      throw err;
    }
    for (const entry of entries) {
      if (entry.isDirectory()) continue;
      try {
        await unlink(join(entry.parentPath, entry.name));
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue; // gone meanwhile: cleared all the same
        this.log.error('Attempt to clear cache with saltutil.clear_cache FAILED with: %s', (err as Error).message);
        return false;
      }
    }
    return true;
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
    summary: 'Return the data of a job this minion cached (cache_jobs must be True on the minion)',
    examples: ["salt '*' saltutil.find_cached_job <job id>"],
    args: JID,
  })
  find_cached_job({ jid }: { jid: string }): Record<string, unknown> | null | string {
    return this.control.findCachedJob(jid);
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
