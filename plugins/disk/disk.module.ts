import { CommandExecutionError, Fn, IGrains, IHost, ILogger, IShell, Module, arg, inject } from 'brine/plugin';

/** df's own flags that Salt lets through (`_clean_flags`). */
const ALLOWED_FLAGS = 'aBhHiklPtTxv';

/** Salt's _clean_flags: each character of `args` must be one of df's allowed flags. */
function cleanFlags(args: string | undefined, caller: string): string {
  if (args === undefined || args === null) return '';
  for (const flag of args) if (!ALLOWED_FLAGS.includes(flag)) throw new CommandExecutionError(`Invalid flag passed to ${caller}`);
  return args;
}

const words = (line: string): string[] => line.trim().split(/\s+/).filter(Boolean);

/**
 * Rejoin a file system name that holds spaces: words are merged into the first until the second
 * is a number (the block count), as Salt does.
 */
function joinFilesystem(comps: string[]): string[] {
  while (comps.length >= 2 && !/^\d+$/.test(comps[1])) {
    comps[0] = `${comps[0]} ${comps[1]}`;
    comps.splice(1, 1);
  }
  return comps;
}

const ARGS = { args: arg.string({ optional: true, description: 'Flags to pass to the df command (a, B, h, H, i, k, l, P, t, T, x, v)' }) };

/** Salt's `disk` module: the usage of mounted file systems, from `df` as Salt runs it. */
@Module('disk', {
  doc: 'Module for managing disks and blockdevices',
  available: (grains) => grains.kernel !== 'Windows' || "This module doesn't work on Windows.",
})
export class DiskModule {
  constructor(
    @inject(IShell) private readonly shell: IShell,
    @inject(IGrains) private readonly grains: IGrains,
    @inject(IHost) private readonly host: IHost,
    @inject(ILogger) private readonly log: ILogger,
  ) {}

  private get kernel(): string {
    return String(this.grains.get('kernel', ''));
  }

  /** Run `df` (Salt's cmd.run: stderr included, trailing space stripped) and split its lines. */
  private async df(cmd: string[], flags = ''): Promise<string[]> {
    const res = await this.shell.run(flags ? [...cmd, `-${flags}`] : cmd, { pythonShell: false, mergeStderr: true });
    return res.stdout.trimEnd().split('\n');
  }

  /** Salt's df command for usage and percent on this kernel. */
  private get dfUsage(): string[] {
    const k = this.kernel;
    if (k === 'Linux') return ['df', '-P'];
    if (k === 'OpenBSD' || k === 'AIX') return ['df', '-kP'];
    return k === 'SunOS' ? ['df', '-k'] : ['df'];
  }

  @Fn({
    summary: 'Return usage information for volumes mounted on this minion',
    description: '{mount point: {filesystem, 1K-blocks, used, available, capacity}} from `df -P`.',
    examples: ["salt '*' disk.usage"],
    args: ARGS,
  })
  async usage({ args }: { args?: string }): Promise<Record<string, Record<string, string>>> {
    const flags = cleanFlags(args, 'disk.usage');
    if (this.kernel === 'Linux' && !(await this.host.exists('/etc/mtab'))) {
      this.log.error('df cannot run without /etc/mtab');
      return {};
    }
    const ret: Record<string, Record<string, string>> = {};
    let oldline: string | null = null;
    for (let line of await this.df(this.dfUsage, flags)) {
      if (!line || line.startsWith('Filesystem')) continue;
      // A long file system name puts the numbers on the next line.
      if (oldline) line = `${oldline} ${line}`;
      const comps = words(line);
      if (comps.length === 1) {
        oldline = line;
        continue;
      }
      oldline = null;
      joinFilesystem(comps);
      if (comps.length < 2) continue;
      if (this.kernel === 'Darwin') {
        ret[comps[8]] = {
          filesystem: comps[0],
          '512-blocks': comps[1],
          used: comps[2],
          available: comps[3],
          capacity: comps[4],
          iused: comps[5],
          ifree: comps[6],
          '%iused': comps[7],
        };
      } else {
        ret[comps[5]] = { filesystem: comps[0], '1K-blocks': comps[1], used: comps[2], available: comps[3], capacity: comps[4] };
      }
    }
    return ret;
  }

  @Fn({
    summary: 'Return inode usage information for volumes mounted on this minion',
    description: '{mount point: {inodes, used, free, use, filesystem}} from `df -iP`.',
    examples: ["salt '*' disk.inodeusage"],
    args: ARGS,
  })
  async inodeusage({ args }: { args?: string }): Promise<Record<string, Record<string, unknown>>> {
    const flags = cleanFlags(args, 'disk.inodeusage');
    const ret: Record<string, Record<string, unknown>> = {};
    for (const line of await this.df(this.kernel === 'AIX' ? ['df', '-i'] : ['df', '-iP'], flags)) {
      if (line.startsWith('Filesystem')) continue;
      const c = words(line);
      if (c.length === 0) continue;
      if (this.kernel === 'OpenBSD') {
        ret[c[8]] = { inodes: Number(c[5]) + Number(c[6]), used: c[5], free: c[6], use: c[7], filesystem: c[0] };
      } else if (this.kernel === 'AIX') {
        ret[c[6]] = { inodes: c[4], used: c[5], free: c[2], use: c[5], filesystem: c[0] };
      } else ret[c[5]] = { inodes: c[1], used: c[2], free: c[3], use: c[4], filesystem: c[0] };
    }
    return ret;
  }

  @Fn({
    summary: 'Return partition information for volumes mounted on this minion: {mount point: capacity}',
    description: "With a mount point, its capacity alone ('42%'); an unknown one gives {}.",
    examples: ["salt '*' disk.percent /var"],
    args: { args: arg.string({ optional: true, description: 'A mount point' }) },
  })
  async percent({ args }: { args?: string }): Promise<Record<string, string> | string> {
    const k = this.kernel;
    // Salt's percent runs plain `df` on SunOS, where usage runs `df -k`.
    const out = await this.df(k === 'SunOS' ? ['df'] : this.dfUsage);
    const ret: Record<string, string> = {};
    for (const line of out) {
      if (!line || line.startsWith('Filesystem')) continue;
      const comps = joinFilesystem(words(line));
      if (comps.length < 2) continue;
      if (k === 'Darwin') ret[comps[8]] = comps[4];
      else ret[comps[5]] = comps[4];
    }
    if (args && !Object.hasOwn(ret, args)) {
      this.log.error("Problem parsing disk usage information: Partition '%s' does not exist!", args);
      return {};
    }
    return args ? ret[args] : ret;
  }
}
