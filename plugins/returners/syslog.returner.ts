import { CommandExecutionError, Fn, IConfig, IShell, Returner, arg, inject, pyJsonDumps } from 'brine/plugin';

// Python's syslog constants by name, as Salt's `syslog.level` / `syslog.facility` options give
// them, mapped to the names of util-linux logger's -p.
const LEVELS: Record<string, string> = {
  LOG_EMERG: 'emerg',
  LOG_ALERT: 'alert',
  LOG_CRIT: 'crit',
  LOG_ERR: 'err',
  LOG_WARNING: 'warning',
  LOG_NOTICE: 'notice',
  LOG_INFO: 'info',
  LOG_DEBUG: 'debug',
};
const FACILITIES: Record<string, string> = {
  LOG_KERN: 'kern',
  LOG_USER: 'user',
  LOG_MAIL: 'mail',
  LOG_DAEMON: 'daemon',
  LOG_AUTH: 'auth',
  LOG_SYSLOG: 'syslog',
  LOG_LPR: 'lpr',
  LOG_NEWS: 'news',
  LOG_UUCP: 'uucp',
  LOG_CRON: 'cron',
  LOG_AUTHPRIV: 'authpriv',
  LOG_FTP: 'ftp',
  ...Object.fromEntries([0, 1, 2, 3, 4, 5, 6, 7].map((n) => [`LOG_LOCAL${n}`, `local${n}`])),
};
// openlog() options: LOG_PID adds the pid; the others concern how the C library talks to the
// socket, which logger decides itself.
const OPTIONS = ['LOG_PID', 'LOG_CONS', 'LOG_NDELAY', 'LOG_ODELAY', 'LOG_NOWAIT', 'LOG_PERROR'];

function pick(table: Record<string, string>, option: string, value: unknown): string {
  const name = String(value);
  if (!Object.hasOwn(table, name)) {
    throw new CommandExecutionError(
      `${option}: ${JSON.stringify(value)} is not a syslog name; use one of ${Object.keys(table).join(', ')}`,
    );
  }
  return table[name];
}

/**
 * Salt's `syslog` returner: each return, as JSON, to the host's syslog with Salt's options
 * `syslog.level` (LOG_INFO), `syslog.facility` (LOG_USER), `syslog.tag` (salt-minion) and
 * `syslog.options` ([]). The message goes through util-linux `logger` to the local socket
 * `/dev/log` (Python's syslog module writes there too); brine adds `syslog.socket` (another unix
 * socket) and `syslog.server` / `syslog.port` (a syslog server over UDP, RFC 3164).
 */
@Returner('syslog', { file: 'syslog_return' })
export class SyslogReturner {
  constructor(
    @inject(IShell) private readonly shell: IShell,
    @inject(IConfig) private readonly config: IConfig,
  ) {}

  private option(name: string, fallback: unknown): unknown {
    return this.config.get(`syslog.${name}`, fallback) ?? fallback;
  }

  /** logger's arguments for one message of `bytes` bytes. */
  private loggerArgs(bytes: number): string[] {
    const level = pick(LEVELS, 'syslog.level', this.option('level', 'LOG_INFO'));
    const facility = pick(FACILITIES, 'syslog.facility', this.option('facility', 'LOG_USER'));
    const options = this.option('options', []);
    const list = Array.isArray(options) ? options.map(String) : [String(options)];
    for (const o of list) {
      if (!OPTIONS.includes(o))
        throw new CommandExecutionError(`syslog.options: ${JSON.stringify(o)} is not a syslog option; use ${OPTIONS.join(', ')}`);
    }
    const args = ['logger', '--socket-errors=on', '-p', `${facility}.${level}`, '-t', String(this.option('tag', 'salt-minion'))];
    if (list.includes('LOG_PID')) args.push(`--id=${process.pid}`);
    // logger cuts messages at 1 KiB by default; a return is as long as it is.
    args.push('--size', String(Math.max(1024, bytes)));
    const server = this.option('server', null);
    if (server) args.push('--rfc3164', '-d', '-n', String(server), '-P', String(this.option('port', 514)));
    else args.push('-u', String(this.option('socket', '/dev/log')));
    return args;
  }

  @Fn({ summary: 'Write one job return, as JSON, to syslog', args: { ret: arg.dict() } })
  async returner({ ret }: { ret: Record<string, unknown> }): Promise<void> {
    const message = pyJsonDumps(ret);
    const args = this.loggerArgs(Buffer.byteLength(message));
    // On stdin, one line: JSON has no raw newline, and no argument length limit applies.
    const res = await this.shell.run(args, { stdin: `${message}\n`, timeout: 30 });
    if (res.retcode !== 0) throw new CommandExecutionError(`logger could not write to syslog: ${(res.stderr || res.stdout).trim()}`);
  }
}
