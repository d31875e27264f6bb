import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Fn, arg, fnmatch, type IConfig, type ISalt, type IShell, type ShellResult } from 'brine/plugin';

/**
 * The minion option naming the root under which the sysvinit and OpenRC backends find init
 * scripts (`<root>/etc/init.d`) and boot links (`<root>/etc/rc?.d`, `<root>/etc/runlevels`).
 * Salt has no such option: its paths are fixed, which is this option's default (`/`). It serves
 * image preparation and tests.
 */
export const SERVICE_ROOT_OPTION = 'service_root';

export function serviceRoot(config: IConfig): string {
  const root = config.get<unknown>(SERVICE_ROOT_OPTION, '/');
  return typeof root === 'string' && root ? root : '/';
}

/** The environment `service(8)` gives an init script: only the locale, TERM and a fixed PATH. */
const SCRIPT_ENV_KEYS = ['LANG', 'LANGUAGE', 'LC_ALL', 'LC_CTYPE', 'TERM'];
const SCRIPT_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/** Salt's check for a glob in a service name (status of `ssh*`). */
export const hasGlob = (name: string): boolean => /\*|\?|\[.+\]/.test(name);

/**
 * The init scripts under a root: running `<root>/etc/init.d/<name> <action>` as `service(8)` and
 * OpenRC do (clean environment, working directory `/`), and listing them.
 */
export class InitScripts {
  readonly dir: string;

  constructor(
    private readonly shell: IShell,
    readonly root: string,
  ) {
    this.dir = join(root, 'etc/init.d');
  }

  /** Salt's `not cmd.retcode(...)`: whether the script's action exited 0. */
  async ok(name: string, action: string): Promise<boolean> {
    return (await this.run(name, action)).retcode === 0;
  }

  run(name: string, action: string): Promise<ShellResult> {
    const env: Record<string, string> = { PATH: SCRIPT_PATH };
    for (const key of SCRIPT_ENV_KEYS) {
      const value = process.env[key];
      if (value !== undefined) env[key] = value;
    }
    // No such script (a name with a slash would leave init.d): exit 127, as a shell says.
    const script = join(this.dir, name);
    if (name.includes('/') || !existsSync(script))
      return Promise.resolve({ pid: 0, retcode: 127, stdout: '', stderr: `${script}: not found\n`, timedOut: false });
    return this.shell.run([script, action], { pythonShell: false, cwd: '/', env, cleanEnv: true });
  }

  /** The scripts in init.d (Salt leaves out README). */
  names(): string[] {
    if (!existsSync(this.dir)) return [];
    return readdirSync(this.dir).filter((n) => n !== 'README');
  }

  /** Salt's status loop: one name, or {name: running} for the names a glob matches among `all`. */
  async status(name: string, all: () => Promise<string[]>): Promise<boolean | Record<string, boolean>> {
    const glob = hasGlob(name);
    const services = glob ? (await all()).filter((s) => fnmatch(name, s)) : [name];
    const results: Record<string, boolean> = {};
    for (const s of services) results[s] = await this.ok(s, 'status');
    return glob ? results : results[name];
  }
}

const NAME = { name: arg.string({ nonEmpty: true }) };

/**
 * What the sysvinit and OpenRC backends share (Salt's debian_service, rh_service and
 * gentoo_service do the same): start, stop, restart, reload and status run the init script, and
 * `sig` looks the process up with ps. Each backend adds how it lists services and sets the boot.
 */
export abstract class InitScriptService {
  protected constructor(
    protected readonly scripts: InitScripts,
    protected readonly salt: ISalt,
  ) {}

  /** The services a status glob and get_running look at. */
  protected abstract serviceNames(): Promise<string[]>;

  @Fn({ summary: 'Start the specified service', examples: ["salt '*' service.start <service name>"], args: NAME })
  start({ name }: { name: string }): Promise<boolean> {
    return this.scripts.ok(name, 'start');
  }

  @Fn({ summary: 'Stop the specified service', examples: ["salt '*' service.stop <service name>"], args: NAME })
  stop({ name }: { name: string }): Promise<boolean> {
    return this.scripts.ok(name, 'stop');
  }

  @Fn({ summary: 'Restart the named service', examples: ["salt '*' service.restart <service name>"], args: NAME })
  restart({ name }: { name: string }): Promise<boolean> {
    return this.scripts.ok(name, 'restart');
  }

  @Fn({ summary: 'Reload the named service', examples: ["salt '*' service.reload <service name>"], args: NAME })
  reload({ name }: { name: string }): Promise<boolean> {
    return this.scripts.ok(name, 'reload');
  }

  @Fn({
    summary: "Whether the service is running (its init script's status exits 0); a glob gives {service: bool}",
    description: 'sig: look for a process whose command line matches instead (status.pid).',
    examples: ["salt '*' service.status <service name> [service signature]"],
    args: { name: arg.string({ nonEmpty: true }), sig: arg.string({ optional: true }) },
  })
  async status({ name, sig }: { name: string; sig?: string }): Promise<boolean | Record<string, boolean>> {
    if (sig) return Boolean(await this.salt.call('status.pid', [sig]));
    return this.scripts.status(name, () => this.serviceNames());
  }

  @Fn({
    summary: 'The services running now (those whose status exits 0), sorted',
    description: "Salt's sysvinit and OpenRC modules have no get_running; brine asks each init script's status.",
    examples: ["salt '*' service.get_running"],
  })
  async get_running(): Promise<string[]> {
    const ret: string[] = [];
    for (const s of (await this.serviceNames()).sort()) if (await this.scripts.ok(s, 'status')) ret.push(s);
    return ret;
  }
}
