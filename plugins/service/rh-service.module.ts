import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Fn, IConfig, IShell, ISalt, Module, arg, inject } from 'brine/plugin';
import { backendVerdict } from './backend';
import { InitScriptService, InitScripts, serviceRoot } from './init-scripts';

const NAME = { name: arg.string({ nonEmpty: true }) };
const LIMIT = { limit: arg.string({ default: '' }) };

/**
 * Salt's `service` for the Red Hat family before systemd (rh_service, sysvinit part): init
 * scripts in `/etc/init.d` run as `/sbin/service` runs them, boot links through `chkconfig`, with
 * `/etc/rc.d/rc<runlevel>.d` as Salt's fallback. The scripts and links sit under the minion option
 * `service_root` (default `/`). Upstart jobs (`/etc/init/*.conf`, RHEL 6's hybrid) are not managed.
 */
@Module('service', {
  doc: 'Service support for RHEL-based systems (sysvinit and chkconfig)',
  file: 'rh_service',
  available: backendVerdict('rh'),
})
export class RhServiceModule extends InitScriptService {
  constructor(
    @inject(IShell) private readonly shell: IShell,
    @inject(IConfig) config: IConfig,
    @inject(ISalt) salt: ISalt,
  ) {
    super(new InitScripts(shell, serviceRoot(config)), salt);
  }

  protected serviceNames(): Promise<string[]> {
    return this.sysvServices();
  }

  /** Salt's _runlevel: `runlevel`, or 3 where it answers unknown (kickstart, containers). */
  private async runlevel(): Promise<string> {
    const res = await this.shell.run(['runlevel'], { pythonShell: false });
    const out = `${res.stdout}${res.stderr}`;
    if (res.retcode !== 0 || out.includes('unknown')) return '3';
    return out.trim().split(/\s+/)[1] ?? '3';
  }

  private chkconfig(args: string[]): Promise<{ retcode: number; stdout: string }> {
    return this.shell.run(['chkconfig', ...args], { pythonShell: false });
  }

  /** Salt's _service_is_sysv: an init script with its owner's execute bit. */
  private isSysv(name: string): boolean {
    const path = join(this.scripts.dir, name);
    return !name.includes('/') && existsSync(path) && (statSync(path).mode & 0o100) !== 0;
  }

  private async isChkconfig(name: string): Promise<boolean> {
    return (await this.chkconfig(['--list', name])).retcode === 0;
  }

  /** Salt's _sysv_is_enabled: chkconfig says `<runlevel>:on`, or an S link is in rc<runlevel>.d. */
  private async isEnabled(name: string, runlevel?: string): Promise<boolean> {
    const level = runlevel ?? (await this.runlevel());
    const res = await this.chkconfig(['--list', name]);
    if (res.retcode === 0) {
      for (const row of res.stdout.split('\n')) {
        const cols = row.trim().split(/\s+/);
        if (row.includes(`${level}:on`) ? cols[0] === name : cols.length === 2 && cols[0] === name && cols[1] === 'on') return true;
      }
    }
    const dir = join(this.scripts.root, 'etc/rc.d', `rc${level}.d`);
    return existsSync(dir) && readdirSync(dir).some((f) => /^S..$/.test(f.slice(0, 3)) && f.slice(3) === name);
  }

  /** Salt's _sysv_services: what `chkconfig --list` lists with runlevels, that has an init script. */
  private async sysvServices(): Promise<string[]> {
    const out = (await this.chkconfig(['--list'])).stdout;
    const names: string[] = [];
    for (const line of out.split('\n')) {
      const comps = line.trim().split(/\s+/);
      if (comps[1]?.startsWith('0:')) names.push(comps[0]);
    }
    return names.filter((n) => this.isSysv(n));
  }

  /** chkconfig NAME on|off, after `chkconfig --add` for a script chkconfig does not manage yet. */
  private async toggle(name: string, onOff: 'on' | 'off'): Promise<boolean> {
    if (!(await this.isChkconfig(name)) && (await this.chkconfig(['--add', name])).retcode !== 0) return false;
    return (await this.chkconfig([name, onOff])).retcode === 0;
  }

  @Fn({
    summary: 'Enable the named service to start at boot (chkconfig --add if needed, then chkconfig NAME on)',
    examples: ["salt '*' service.enable <service name>"],
    args: NAME,
    kwargs: true,
  })
  enable({ name }: { name: string }): Promise<boolean> {
    return this.toggle(name, 'on');
  }

  @Fn({
    summary: 'Disable the named service at boot (chkconfig --add if needed, then chkconfig NAME off)',
    examples: ["salt '*' service.disable <service name>"],
    args: NAME,
    kwargs: true,
  })
  disable({ name }: { name: string }): Promise<boolean> {
    return this.toggle(name, 'off');
  }

  @Fn({
    summary: 'Remove the named service from chkconfig (chkconfig --del)',
    examples: ["salt '*' service.delete <service name>"],
    args: NAME,
    kwargs: true,
  })
  async delete({ name }: { name: string }): Promise<boolean> {
    if (!(await this.isChkconfig(name))) return false;
    return (await this.chkconfig(['--del', name])).retcode === 0;
  }

  @Fn({
    summary: 'Whether the named service starts at boot in the current runlevel',
    examples: ["salt '*' service.enabled <service name>"],
    args: NAME,
    kwargs: true,
  })
  enabled({ name }: { name: string }): Promise<boolean> {
    return this.isEnabled(name);
  }

  @Fn({
    summary: 'Whether the named service does not start at boot in the current runlevel',
    examples: ["salt '*' service.disabled <service name>"],
    args: NAME,
  })
  async disabled({ name }: { name: string }): Promise<boolean> {
    return !(await this.isEnabled(name));
  }

  @Fn({ summary: 'The services enabled in the current runlevel, sorted', examples: ["salt '*' service.get_enabled"], args: LIMIT })
  async get_enabled({ limit }: { limit: string }): Promise<string[]> {
    if (limit.toLowerCase() === 'upstart') return []; // no upstart jobs are managed
    const level = await this.runlevel();
    const ret: string[] = [];
    for (const s of await this.sysvServices()) if (await this.isEnabled(s, level)) ret.push(s);
    return ret.sort();
  }

  @Fn({ summary: 'The services not enabled in the current runlevel, sorted', examples: ["salt '*' service.get_disabled"], args: LIMIT })
  async get_disabled({ limit }: { limit: string }): Promise<string[]> {
    if (limit.toLowerCase() === 'upstart') return []; // no upstart jobs are managed
    const level = await this.runlevel();
    const ret: string[] = [];
    for (const s of await this.sysvServices()) if (!(await this.isEnabled(s, level))) ret.push(s);
    return ret.sort();
  }

  @Fn({ summary: 'Every service chkconfig lists that has an init script, sorted', examples: ["salt '*' service.get_all"], args: LIMIT })
  async get_all({ limit }: { limit: string }): Promise<string[]> {
    if (limit.toLowerCase() === 'upstart') return []; // no upstart jobs are managed
    return (await this.sysvServices()).sort();
  }

  @Fn({
    summary: 'Whether the service has an init script or chkconfig knows it',
    examples: ["salt '*' service.available sshd"],
    args: NAME,
  })
  async available({ name }: { name: string }): Promise<boolean> {
    return this.isSysv(name) || (await this.isChkconfig(name));
  }

  @Fn({
    summary: 'Whether the service has no init script (the inverse of service.available, as Salt has it)',
    examples: ["salt '*' service.missing sshd"],
    args: NAME,
  })
  missing({ name }: { name: string }): boolean {
    return !this.isSysv(name);
  }
}
