import { statfs } from 'node:fs/promises';
import { lookup } from 'node:dns/promises';
import {
  pyStrftime,
  CommandExecutionError,
  Fn,
  IConfig,
  IGrains,
  IHost,
  IMasterLink,
  IMinionEvents,
  IShell,
  Module,
  arg,
  compilePythonSearch,
  fnmatch,
  inject,
} from 'brine/plugin';
import { remotesOnPort } from './tcp-remotes';

type Stats = Record<string, unknown>;

/** Salt's _number: an int for digits, else a float, else the text. */
function num(text: string): number | string {
  if (/^\d+$/.test(text)) return Number(text);
  const f = Number(text);
  return text.trim() !== '' && !Number.isNaN(f) ? f : text;
}

const words = (line: string): string[] => line.trim().split(/\s+/).filter(Boolean);

/** Python's isoformat of a naive UTC datetime (microseconds only when there are some). */
function isoformat(seconds: number): string {
  const d = new Date(Math.floor(seconds * 1000));
  const base = d.toISOString().slice(0, 19);
  const micros = Math.round((seconds - Math.floor(seconds)) * 1e6) % 1e6;
  return micros ? `${base}.${String(micros).padStart(6, '0')}` : base;
}

const NOT_LINUX = 'This method is unsupported on the current operating system!';

/**
 * Salt's `status` module for Linux: figures from /proc (uptime, load, memory, CPUs, disks,
 * network counters), mounted file system usage, and the process table and logged-in users from
 * `ps` and `w` as Salt runs them. Other kernels get Salt's "unsupported" answer.
 */
@Module('status', {
  doc: 'Module for returning various status data about a minion. These data can be useful for compiling into stats later.',
  available: (grains) => grains.kernel !== 'Windows' || 'Windows platform is not supported by this module',
})
export class StatusModule {
  constructor(
    @inject(IHost) private readonly host: IHost,
    @inject(IShell) private readonly shell: IShell,
    @inject(IGrains) private readonly grains: IGrains,
    @inject(IConfig) private readonly config: IConfig,
    @inject(IMasterLink) private readonly masterLink: IMasterLink,
    // Only status.master fires events; without a minion bus it still answers.
    @inject(IMinionEvents, { optional: true }) private readonly events: IMinionEvents | undefined,
  ) {}

  private get linux(): boolean {
    return this.grains.get('kernel') === 'Linux';
  }

  /** Salt's cmd.run: stdout and stderr together, trailing whitespace stripped. */
  private async cmdRun(cmd: string | string[], pythonShell = false): Promise<string> {
    const res = await this.shell.run(cmd, { pythonShell, mergeStderr: true });
    return res.stdout.trimEnd();
  }

  /** The non-empty lines of a /proc file, or null when it cannot be read. */
  private async procLines(path: string): Promise<string[] | null> {
    const text = await this.host.readFile(path);
    return text === null ? null : text.split('\n').filter((l) => l !== '');
  }

  @Fn({
    summary: 'Return the uptime for this system',
    description: 'seconds, since_iso, since_t, days, time (H:M) and, where `who` exists, users.',
    examples: ["salt '*' status.uptime"],
  })
  async uptime(): Promise<Stats | string> {
    const now = Date.now() / 1000;
    if (!this.linux) return this.cmdRun('uptime');
    const text = await this.host.readFile('/proc/uptime');
    if (text === null) throw new CommandExecutionError('File /proc/uptime was not found.');
    const seconds = Math.trunc(Number(words(text)[0]));
    const days = Math.floor(seconds / 86400);
    const rest = seconds % 86400;
    const ret: Stats = {
      seconds,
      since_iso: isoformat(now - seconds),
      since_t: Math.trunc(now - seconds),
      days,
      time: `${Math.floor(rest / 3600)}:${Math.floor((rest % 3600) / 60)}`,
    };
    // Salt counts the lines of `who -s`: an empty output is one line.
    if (await this.shell.which('who')) ret.users = (await this.cmdRun(['who', '-s'])).split('\n').length;
    return ret;
  }

  @Fn({ summary: 'Return the load averages for this minion', examples: ["salt '*' status.loadavg"] })
  async loadavg(): Promise<Stats> {
    const text = await this.host.readFile('/proc/loadavg');
    if (text === null) throw new CommandExecutionError('status.loadavag is not available on your platform');
    const [one, five, fifteen] = words(text).map(Number);
    return { '1-min': one, '5-min': five, '15-min': fifteen };
  }

  @Fn({ summary: 'Return the CPU stats for this minion (/proc/stat)', examples: ["salt '*' status.cpustats"] })
  async cpustats(): Promise<Stats | string> {
    if (!this.linux) return NOT_LINUX;
    const ret: Stats = {};
    for (const line of (await this.procLines('/proc/stat')) ?? []) {
      const c = words(line);
      if (c[0] === 'cpu') {
        ret.cpu = {
          idle: num(c[4]),
          iowait: num(c[5]),
          irq: num(c[6]),
          nice: num(c[2]),
          softirq: num(c[7]),
          steal: num(c[8]),
          system: num(c[3]),
          user: num(c[1]),
        };
      } else if (c[0] === 'intr') ret.intr = { total: num(c[1]), irqs: c.slice(2).map(num) };
      else if (c[0] === 'softirq') ret.softirq = { total: num(c[1]), softirqs: c.slice(2).map(num) };
      else ret[c[0]] = num(c[1]);
    }
    return ret;
  }

  @Fn({ summary: 'Return the memory info for this minion (/proc/meminfo)', examples: ["salt '*' status.meminfo"] })
  async meminfo(): Promise<Stats | string> {
    if (!this.linux) return NOT_LINUX;
    const ret: Stats = {};
    for (const line of (await this.procLines('/proc/meminfo')) ?? []) {
      const c = words(line);
      const key = c[0].replaceAll(':', '');
      ret[key] = c.length > 2 ? { value: c[1], unit: c[2] } : { value: c[1] };
    }
    return ret;
  }

  @Fn({ summary: 'Return the CPU info for this minion (/proc/cpuinfo; the last CPU wins)', examples: ["salt '*' status.cpuinfo"] })
  async cpuinfo(): Promise<Stats | string> {
    if (!this.linux) return NOT_LINUX;
    const ret: Stats = {};
    for (const line of (await this.procLines('/proc/cpuinfo')) ?? []) {
      const c = line.split(':');
      const key = c[0].trim();
      ret[key] = key === 'flags' ? words(c[1] ?? '') : (c[1] ?? '').trim();
    }
    return ret;
  }

  @Fn({ summary: 'Return the disk stats for this minion (/proc/diskstats)', examples: ["salt '*' status.diskstats"] })
  async diskstats(): Promise<Stats | string> {
    if (!this.linux) return NOT_LINUX;
    const ret: Stats = {};
    const fields = [
      'major',
      'minor',
      'device',
      'reads_issued',
      'reads_merged',
      'sectors_read',
      'ms_spent_reading',
      'writes_completed',
      'writes_merged',
      'sectors_written',
      'ms_spent_writing',
      'io_in_progress',
      'ms_spent_in_io',
      'weighted_ms_spent_in_io',
    ];
    for (const line of (await this.procLines('/proc/diskstats')) ?? []) {
      const c = words(line);
      ret[c[2]] = Object.fromEntries(fields.map((f, i) => [f, num(c[i])]));
    }
    return ret;
  }

  @Fn({
    summary: 'Return the disk usage for this minion: mount points (absolute paths) or file system types (globs)',
    description: 'With no argument, every mounted file system. {mount point: {available, total}} in bytes.',
    examples: [
      "salt '*' status.diskusage [paths and/or filesystem types]",
      "salt '*' status.diskusage / /tmp",
      "salt '*' status.diskusage ext?",
    ],
    args: {},
    varargs: true,
  })
  async diskusage({ args }: { args: unknown[] }): Promise<Stats> {
    const selected = new Set<string>();
    const fstypes: string[] = [];
    if (args.length === 0) fstypes.push('*');
    for (const a of args.map(String)) {
      if (a.startsWith('/')) selected.add(a);
      else fstypes.push(a);
    }
    if (fstypes.length > 0) {
      if (!this.linux) throw new CommandExecutionError('status.diskusage not yet supported on this platform');
      const mounts = await this.procLines('/proc/mounts');
      if (mounts === null) return {};
      for (const line of mounts) {
        const c = words(line);
        if (c.length >= 3 && fstypes.some((t) => fnmatch(t, c[2]))) selected.add(c[1]);
      }
    }
    const ret: Stats = {};
    for (const path of selected) {
      let s;
      try {
        s = await statfs(path);
      } catch (e) {
        throw new CommandExecutionError(`${(e as Error).message}`);
      }
      ret[path] = { available: s.bavail * s.bsize, total: s.blocks * s.bsize };
    }
    return ret;
  }

  @Fn({ summary: 'Return the virtual memory stats for this minion (/proc/vmstat)', examples: ["salt '*' status.vmstats"] })
  async vmstats(): Promise<Stats | string> {
    if (!this.linux) return NOT_LINUX;
    const ret: Stats = {};
    for (const line of (await this.procLines('/proc/vmstat')) ?? []) {
      const c = words(line);
      ret[c[0]] = num(c[1]);
    }
    return ret;
  }

  @Fn({ summary: 'Return the number of processing units available on this system (nproc)', examples: ["salt '*' status.nproc"] })
  async nproc(): Promise<number | string> {
    if (!this.linux) return NOT_LINUX;
    const n = num((await this.cmdRun('nproc')).trim());
    return typeof n === 'number' ? n : 0;
  }

  @Fn({ summary: 'Return the network stats for this minion (/proc/net/netstat)', examples: ["salt '*' status.netstats"] })
  async netstats(): Promise<Stats | string> {
    if (!this.linux) return NOT_LINUX;
    const ret: Stats = {};
    let headers = [''];
    // Lines come in pairs: a header ("TcpExt: SyncookiesSent ...") then its values.
    for (const line of (await this.procLines('/proc/net/netstat')) ?? []) {
      const c = words(line);
      if (c[0] === headers[0]) {
        const row: Stats = {};
        for (let f = 1; f < headers.length - 1; f++) row[headers[f]] = num(c[f]);
        ret[headers[0].replaceAll(':', '')] = row;
      } else headers = c;
    }
    return ret;
  }

  @Fn({ summary: 'Return the network device stats for this minion (/proc/net/dev)', examples: ["salt '*' status.netdev"] })
  async netdev(): Promise<Stats | string> {
    if (!this.linux) return NOT_LINUX;
    const ret: Stats = {};
    for (const line of (await this.procLines('/proc/net/dev')) ?? []) {
      if (!line.includes(':')) continue;
      const iface = line.split(':')[0].trim();
      const c = [iface, ...words(line.slice(line.indexOf(':') + 1))];
      c.splice(1, 0, c[1]);
      ret[iface] = {
        iface,
        rx_bytes: num(c[2]),
        rx_compressed: num(c[8]),
        rx_drop: num(c[5]),
        rx_errs: num(c[4]),
        rx_fifo: num(c[6]),
        rx_frame: num(c[7]),
        rx_multicast: num(c[9]),
        rx_packets: num(c[3]),
        tx_bytes: num(c[10]),
        tx_carrier: num(c[16]),
        tx_colls: num(c[15]),
        tx_compressed: num(c[17]),
        tx_drop: num(c[13]),
        tx_errs: num(c[12]),
        tx_fifo: num(c[14]),
        tx_packets: num(c[11]),
      };
    }
    return ret;
  }

  @Fn({ summary: 'Return a list of logged in users for this minion, using the w command', examples: ["salt '*' status.w"] })
  async w(): Promise<Stats[] | string> {
    if (!this.linux) return NOT_LINUX;
    const ret: Stats[] = [];
    for (const row of (await this.cmdRun(['w', '-fh'])).split('\n')) {
      if (!row) continue;
      const c = words(row);
      ret.push({ idle: c[3], jcpu: c[4], login: c[2], pcpu: c[5], tty: c[1], user: c[0], what: c.slice(6).join(' ') });
    }
    return ret;
  }

  @Fn({
    summary: 'Return the process data: {pid: {user, cmd}} from the `ps` grain command',
    examples: ["salt '*' status.procs"],
  })
  async procs(): Promise<Record<string, { user: string; cmd: string }>> {
    const lines = (await this.cmdRun(String(this.grains.get('ps', 'ps -efHww')), true)).split('\n');
    const guide = words(lines.shift() ?? '');
    const at = (...names: string[]): number => {
      for (const n of names) if (guide.includes(n)) return guide.indexOf(n);
      return 0;
    };
    const [uind, pind, cind] = [at('USER', 'UID'), at('PID'), at('COMMAND', 'CMD')];
    const ret: Record<string, { user: string; cmd: string }> = {};
    for (const line of lines) {
      if (!line) continue;
      const c = words(line);
      ret[c[pind]] = { user: c[uind], cmd: c.slice(cind).join(' ') };
    }
    return ret;
  }

  @Fn({
    summary: "Return the PIDs of processes whose `ps` line matches the regular expression sig, one per line (the minion's own left out)",
    examples: ["salt '*' status.pid <sig>"],
    args: { sig: arg.string({ nonEmpty: true, description: 'A Python regular expression searched in each ps line' }) },
  })
  async pid({ sig }: { sig: string }): Promise<string> {
    const me = String(process.pid);
    const re = compilePythonSearch(sig);
    const res = await this.shell.run(String(this.grains.get('ps', 'ps -efHww')), { pythonShell: true });
    const pids: string[] = [];
    for (const line of res.stdout.trimEnd().split('\n')) {
      if (line.includes(me)) continue;
      if (line.search(re) !== -1) pids.push(words(line)[1]);
    }
    return pids.join('\n');
  }

  @Fn({ summary: 'Return the system version for this minion (/proc/version)', examples: ["salt '*' status.version"] })
  async version(): Promise<string | Stats> {
    if (!this.linux) return NOT_LINUX;
    return (await this.host.readFile('/proc/version'))?.trim() ?? {};
  }

  @Fn({
    summary: "Return the current time on the minion, formatted with Python's strftime directives",
    examples: ["salt '*' status.time", "salt '*' status.time '%s'"],
    args: { format: arg.string({ default: '%A, %d. %B %Y %I:%M%p' }) },
  })
  time({ format }: { format: string }): string {
    return pyStrftime(new Date(), format);
  }

  @Fn({
    summary: 'Return a composite of all status data and info for this minion',
    examples: ["salt '*' status.all_status"],
  })
  async all_status(): Promise<Stats> {
    return {
      cpuinfo: await this.cpuinfo(),
      cpustats: await this.cpustats(),
      diskstats: await this.diskstats(),
      diskusage: await this.diskusage({ args: [] }),
      loadavg: await this.loadavg(),
      meminfo: await this.meminfo(),
      netdev: await this.netdev(),
      netstats: await this.netstats(),
      uptime: await this.uptime(),
      vmstats: await this.vmstats(),
      w: await this.w(),
    };
  }

  @Fn({
    summary:
      "Whether this minion holds a connection to the master's publish port; fires __master_connected/__master_disconnected when not as expected",
    description: 'Meant to run from the minion scheduler. The master (a name or an address) must resolve; without one the answer is None.',
    examples: ["salt '*' status.master 10.0.0.5", "salt '*' status.master salt connected=False"],
    args: { master: arg.string({ optional: true }), connected: arg.boolean({ default: true }) },
  })
  async master({ master, connected }: { master?: string; connected: boolean }): Promise<boolean | null> {
    if (!master) return null;
    let ips: string[];
    try {
      ips = (await lookup(master, { all: true })).map((a) => a.address);
    } catch {
      return null;
    }
    if (ips.length === 0) return null;
    const port = Number(this.config.get('publish_port', 4505));
    const tables: Array<{ v6: boolean; text: string }> = [];
    for (const [path, v6] of [
      ['/proc/net/tcp', false],
      ['/proc/net/tcp6', true],
    ] as const) {
      const text = await this.host.readFile(path);
      if (text !== null) tables.push({ v6, text });
    }
    if (tables.length === 0) throw new CommandExecutionError('status.master reads /proc/net/tcp, which this host does not have');
    const remotes = remotesOnPort(tables, port);
    const status = ips.some((ip) => remotes.has(ip));
    if (status !== connected) await this.events?.fire(status ? '__master_connected' : '__master_disconnected', { master });
    return status;
  }

  @Fn({
    summary: 'Whether a master answers on its request port (a clear ping on a connection of its own); fires __master_failback when it does',
    examples: ["salt '*' status.ping_master localhost"],
    args: { master: arg.any() },
  })
  async ping_master({ master }: { master: unknown }): Promise<boolean> {
    if (master === null || master === undefined || master === '') return false;
    let host = String(master);
    let port = Number(this.config.get('master_port', 4506));
    // Salt's prep_ip_port: "host:port" (an IPv6 address in brackets when it has a port).
    const m = /^\[([^\]]+)\](?::(\d+))?$/.exec(host) ?? (host.split(':').length === 2 ? /^([^:]+):(\d+)$/.exec(host) : null);
    if (m) {
      host = m[1];
      if (m[2]) port = Number(m[2]);
    }
    let address: string;
    try {
      address = (await lookup(host)).address;
    } catch {
      return false;
    }
    const timeoutSec = Number(this.config.get('auth_timeout', 60));
    const ok = await this.masterLink.ping(address, port, timeoutSec * 1000);
    if (ok) await this.events?.fire('__master_failback', { master: String(master) });
    return ok;
  }
}
