import { Fn, IConfig, IMaster, Runner, SALT_VERSION, arg, inject } from 'brine/plugin';

/** Salt's version order for release strings: numbers compared part by part (3007.10 > 3007.9 > 3006.x). */
export function compareVersions(a: string, b: string): number {
  const pa = a
    .split(/[^0-9]+/)
    .filter(Boolean)
    .map(Number);
  const pb = b
    .split(/[^0-9]+/)
    .filter(Boolean)
    .map(Number);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return Math.sign(d);
  }
  return 0;
}

const LABELS: Record<number, string> = {
  [-2]: 'Minion offline',
  [-1]: 'Minion requires update',
  0: 'Up to date',
  1: 'Minion newer than master',
};

const TARGET_ARGS = {
  tgt: arg.any({ default: '*' }),
  tgt_type: arg.string({ default: 'glob' }),
  timeout: arg.number({ optional: true }),
  gather_job_timeout: arg.number({ optional: true }),
};

interface TargetArgs {
  tgt: unknown;
  tgt_type: string;
  timeout?: number;
  gather_job_timeout?: number;
}

/**
 * Salt's manage runner (salt/runners/manage.py): which minions answer, and their versions.
 */
@Runner('manage', { doc: 'General management functions for salt, tools like seeing what hosts are up and what hosts are down' })
export class ManageRunner {
  constructor(
    @inject(IMaster) private readonly master: IMaster,
    @inject(IConfig) private readonly config: IConfig,
  ) {}

  /**
   * Pings the target as Salt's _ping: up = the minions that answered, down = the matched ones that
   * did not, after `timeout` and then `gather_job_timeout` for those still missing.
   */
  private async ping({ tgt, tgt_type, timeout, gather_job_timeout }: TargetArgs): Promise<{ up: string[]; down: string[] }> {
    const target = Array.isArray(tgt) ? tgt.map(String) : String(tgt);
    const expected = this.master.match(target, tgt_type);
    if (expected.length === 0) return { up: [], down: [] };
    const answers = await this.master.cmd({
      tgt: target,
      tgtType: tgt_type,
      fun: 'test.ping',
      timeout: timeout ?? this.config.get<number>('timeout', 5),
      gatherJobTimeout: gather_job_timeout,
    });
    const answered = new Set(answers.map((a) => a.id));
    return { up: [...answered].sort(), down: expected.filter((id) => !answered.has(id)) };
  }

  @Fn({
    summary: 'Print the status of all known salt minions',
    examples: ['salt-run manage.status', "salt-run manage.status tgt='web*'"],
    args: { output: arg.boolean({ default: true }), ...TARGET_ARGS },
  })
  status(a: TargetArgs): Promise<{ up: string[]; down: string[] }> {
    return this.ping(a);
  }

  @Fn({ summary: 'Print a list of all of the minions that are up', examples: ['salt-run manage.up'], args: TARGET_ARGS })
  async up(a: TargetArgs): Promise<string[]> {
    return (await this.ping(a)).up;
  }

  @Fn({ summary: 'Print a list of all the down or unresponsive salt minions', examples: ['salt-run manage.down'], args: TARGET_ARGS })
  async down(a: TargetArgs): Promise<string[]> {
    return (await this.ping(a)).down;
  }

  @Fn({
    summary: 'Check the version of active minions',
    description:
      "Minions that answer test.version are grouped by how their version compares with the master's: 'Up to date', 'Minion requires update', 'Minion newer than master'; then 'Master' gives the master's.",
    examples: ['salt-run manage.versions'],
    args: {},
  })
  async versions(): Promise<Record<string, unknown>> {
    const groups = new Map<number, Record<string, string | false>>();
    for (const ret of await this.master.cmd({ tgt: '*', fun: 'test.version' })) {
      const ok = ret.retcode === 0 && typeof ret.return === 'string' && ret.return !== '';
      const diff = ok ? compareVersions(ret.return as string, SALT_VERSION) : -2;
      if (!groups.has(diff)) groups.set(diff, {});
      groups.get(diff)![ret.id] = ok ? (ret.return as string) : false;
    }
    const result: Record<string, unknown> = {};
    for (const [diff, members] of groups) {
      result[LABELS[diff]] = Object.fromEntries(
        Object.keys(members)
          .sort()
          .map((id) => [id, members[id]]),
      );
    }
    result.Master = SALT_VERSION;
    return result;
  }
}
