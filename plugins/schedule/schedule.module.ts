import { arg, Fn, formatYaml, IConfig, InvocationError, IPillar, loadYaml, Module, inject } from 'brine/plugin';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

type Dict = Record<string, unknown>;

/** The keys a job may hold (Salt's SCHEDULE_CONF); others are left out of the listing. */
const SCHEDULE_CONF = new Set([
  'name',
  'maxrunning',
  'function',
  'splay',
  'range',
  'when',
  'once',
  'once_fmt',
  'returner',
  'jid_include',
  'args',
  'kwargs',
  '_seconds',
  'seconds',
  'minutes',
  'hours',
  'days',
  'enabled',
  'return_job',
  'metadata',
  'cron',
  'until',
  'after',
  'return_config',
  'return_kwargs',
  'run_on_start',
  'skip_during_range',
  'run_after_skip_range',
]);
/** Top-level keys of a schedule that are settings, not jobs. */
const HIDDEN = new Set(['enabled', 'skip_function', 'skip_during_range']);

function scheduleOf(where: string, value: unknown): Dict {
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value))
    throw new InvocationError(`Schedule must be of type dict (the ${where}'s schedule: is not).`);
  return structuredClone(value) as Dict;
}

/**
 * Salt's `schedule` module, the part that reads (salt/modules/schedule.py `list`): the jobs the
 * pillar and the minion's options schedule, shown as Salt shows them. brine's minion has no
 * scheduler yet: the jobs listed are configured, not run.
 */
@Module('schedule')
export class ScheduleModule {
  constructor(
    @inject(IConfig) private readonly config: IConfig,
    @inject(IPillar) private readonly pillar: IPillar,
  ) {}

  /** The schedule `schedule.save` would have written (`minion.d/_schedule.conf` beside the config). */
  private saved(): Dict {
    const conf = this.config.get<string | null>('conf_file', null);
    if (!conf) return {};
    const file = join(dirname(conf), 'minion.d', '_schedule.conf');
    if (!existsSync(file)) return {};
    const text = readFileSync(file, 'utf8');
    const data = text.trim() === '' ? null : loadYaml(text);
    return data && typeof data === 'object' && !Array.isArray(data) ? scheduleOf('saved file', (data as Dict).schedule) : {};
  }

  @Fn({
    summary: 'List the jobs scheduled on the minion (configured in its options and pillar)',
    examples: ["salt '*' schedule.list", "salt '*' schedule.list show_all=True return_yaml=False"],
    args: {
      show_all: arg.boolean({ default: false }),
      show_disabled: arg.boolean({ default: true }),
      where: arg.string({ optional: true }),
      return_yaml: arg.boolean({ default: true }),
      offline: arg.boolean({ default: false }),
    },
  })
  async list(a: { show_all: boolean; show_disabled: boolean; where?: string; return_yaml: boolean; offline: boolean }): Promise<unknown> {
    const saved = this.saved();
    let schedule: Dict = {};
    if (a.offline) schedule = structuredClone(saved);
    else {
      // Salt's Schedule._get_schedule: the pillar's jobs, then the options' over them.
      if (a.where !== 'opts') Object.assign(schedule, scheduleOf('pillar', (await this.pillar.current()).schedule));
      if (a.where !== 'pillar') Object.assign(schedule, scheduleOf('minion configuration', this.config.get<unknown>('schedule', {})));
    }
    for (const name of Object.keys(schedule)) {
      if (HIDDEN.has(name)) continue;
      // Jobs Salt adds itself start with __ and are hidden unless show_all.
      if (name.startsWith('__') && !a.show_all) {
        delete schedule[name];
        continue;
      }
      const job = schedule[name];
      if (job === null || typeof job !== 'object' || Array.isArray(job)) continue;
      const j = job as Dict;
      if (!('enabled' in j)) j.enabled = true;
      for (const item of Object.keys(j)) {
        if (!SCHEDULE_CONF.has(item) || j[item] === null) delete j[item];
        else if (j[item] === 'true') j[item] = true;
        else if (j[item] === 'false') j[item] = false;
      }
      if (!a.show_disabled && !j.enabled) {
        delete schedule[name];
        continue;
      }
      delete j._seconds;
    }
    if (!a.return_yaml) return schedule;
    for (const [name, job] of Object.entries(schedule))
      if (job !== null && typeof job === 'object' && !Array.isArray(job)) (job as Dict).saved = name in saved;
    return formatYaml({ schedule });
  }
}
