import { existsSync, readdirSync, readFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { CommandExecutionError, Fn, IConfig, IShell, ISalt, Module, arg, inject } from 'brine/plugin';
import { backendVerdict } from './backend';
import { InitScriptService, InitScripts, serviceRoot } from './init-scripts';

const NAME = { name: arg.string({ nonEmpty: true }) };

/** Runlevels whose links update-rc.d enable/disable toggles (the normal start sequence). */
const TOGGLED = new Set(['S', '2', '3', '4', '5']);

/** The runlevels of an init script's LSB `Default-Start:` line. */
function defaultStart(script: string): string[] {
  if (!existsSync(script)) return [];
  const line = /^#\s*Default-Start:(.*)$/m.exec(readFileSync(script, 'utf8'));
  return line ? line[1].trim().split(/\s+/).filter(Boolean) : [];
}

/**
 * Salt's `service` on Debian without systemd (debian_service): init scripts in `/etc/init.d`, boot
 * links in `/etc/rc?.d` made by update-rc.d. Scripts run as `service(8)` runs them. Both places sit
 * under the minion option `service_root` (default `/`).
 */
@Module('service', {
  doc: 'Service support for Debian systems (uses update-rc.d and /sbin/service)',
  file: 'debian_service',
  available: backendVerdict('debian'),
})
export class DebianServiceModule extends InitScriptService {
  constructor(
    @inject(IShell) private readonly shell: IShell,
    @inject(IConfig) config: IConfig,
    @inject(ISalt) salt: ISalt,
  ) {
    super(new InitScripts(shell, serviceRoot(config)), salt);
  }

  protected serviceNames(): Promise<string[]> {
    return this.get_all();
  }

  /** Salt's _get_runlevel: `runlevel`, or 2 (Debian's default) where there is none (containers). */
  private async runlevel(): Promise<string> {
    const res = await this.shell.run(['runlevel'], { pythonShell: false });
    const out = `${res.stdout}${res.stderr}`;
    if (res.retcode !== 0 || out.includes('unknown')) return '2';
    return out.trim().split(/\s+/)[1] ?? '2';
  }

  /** update-rc.d, under DPKG_ROOT when the service root is not `/` (update-rc.d's own root option). */
  private updateRcD(args: string[]): Promise<{ retcode: number; stderr: string }> {
    const root = this.scripts.root;
    return this.shell.run(['update-rc.d', ...args], { pythonShell: false, env: root === '/' ? {} : { DPKG_ROOT: root } });
  }

  /**
   * update-rc.d's enable/disable: rename the S/K links of the script's Default-Start runlevels.
   * Done here because update-rc.d looks the LSB header up in /etc/init.d whatever DPKG_ROOT says.
   * False (update-rc.d's "no runlevel symlinks to modify") when there are no links.
   */
  private toggle(name: string, enable: boolean): boolean {
    const levels = defaultStart(join(this.scripts.dir, name)).filter((l) => TOGGLED.has(l));
    const links: string[] = [];
    for (const lvl of levels) {
      const dir = join(this.scripts.root, 'etc', `rc${lvl}.d`);
      if (!existsSync(dir)) continue;
      for (const f of readdirSync(dir)) if (/^[SK]\d\d/.test(f) && f.slice(3) === name) links.push(join(dir, f));
    }
    if (links.length === 0) return false;
    for (const link of links) {
      const base = link.slice(link.lastIndexOf('/') + 1);
      const [from, to] = enable ? ['K', 'S'] : ['S', 'K'];
      if (base[0] === from) renameSync(link, join(link.slice(0, link.lastIndexOf('/')), to + base.slice(1)));
    }
    return true;
  }

  @Fn({ summary: 'Force-reload the named service', examples: ["salt '*' service.force_reload <service name>"], args: NAME })
  force_reload({ name }: { name: string }): Promise<boolean> {
    return this.scripts.ok(name, 'force-reload');
  }

  @Fn({
    summary: 'Enable the named service to start at boot',
    description:
      'Salt runs `insserv NAME && update-rc.d NAME enable`; brine makes the links insserv would with `update-rc.d NAME defaults` ' +
      '(Debian 12 ships without insserv) and then turns the K links of Default-Start into S links, as update-rc.d enable does.',
    examples: ["salt '*' service.enable <service name>"],
    args: NAME,
    kwargs: true,
  })
  async enable({ name }: { name: string }): Promise<boolean> {
    if (!existsSync(join(this.scripts.dir, name))) return false;
    const res = await this.updateRcD([name, 'defaults']);
    if (res.retcode !== 0) throw new CommandExecutionError(res.stderr.trim() || `update-rc.d ${name} defaults failed`);
    return this.toggle(name, true);
  }

  @Fn({
    summary: 'Disable the named service to start at boot (update-rc.d NAME disable)',
    examples: ["salt '*' service.disable <service name>"],
    args: NAME,
    kwargs: true,
  })
  async disable({ name }: { name: string }): Promise<boolean> {
    return this.toggle(name, false);
  }

  @Fn({
    summary: 'Whether the named service starts at boot',
    examples: ["salt '*' service.enabled <service name>"],
    args: NAME,
    kwargs: true,
  })
  async enabled({ name }: { name: string }): Promise<boolean> {
    return (await this.get_enabled()).includes(name);
  }

  @Fn({ summary: 'Whether the named service does not start at boot', examples: ["salt '*' service.disabled <service name>"], args: NAME })
  async disabled({ name }: { name: string }): Promise<boolean> {
    return (await this.get_disabled()).includes(name);
  }

  @Fn({
    summary: 'The services enabled on boot (S links of the current runlevel and rcS.d), sorted',
    examples: ["salt '*' service.get_enabled"],
  })
  async get_enabled(): Promise<string[]> {
    const ret = new Set<string>();
    for (const lvl of ['S', await this.runlevel()]) {
      const dir = join(this.scripts.root, 'etc', `rc${lvl}.d`);
      if (!existsSync(dir)) continue;
      // Salt strips every digit run and keeps the last piece; brine strips the S and the sequence
      // number only, so that a service with digits in its name (php8.2-fpm) keeps its name.
      for (const f of readdirSync(dir)) if (/^S\d+/.test(f)) ret.add(f.replace(/^S\d+/, ''));
    }
    return [...ret].sort();
  }

  @Fn({ summary: 'The services installed but not enabled on boot, sorted', examples: ["salt '*' service.get_disabled"] })
  async get_disabled(): Promise<string[]> {
    const enabled = new Set(await this.get_enabled());
    return (await this.get_all()).filter((s) => !enabled.has(s));
  }

  @Fn({ summary: 'Every init script, and every service enabled at boot, sorted', examples: ["salt '*' service.get_all"] })
  async get_all(): Promise<string[]> {
    return [...new Set([...this.scripts.names(), ...(await this.get_enabled())])].sort();
  }

  @Fn({ summary: 'Whether the service is available (it has an init script)', examples: ["salt '*' service.available sshd"], args: NAME })
  async available({ name }: { name: string }): Promise<boolean> {
    return (await this.get_all()).includes(name);
  }

  @Fn({
    summary: 'Whether the service is not available (the inverse of service.available)',
    examples: ["salt '*' service.missing sshd"],
    args: NAME,
  })
  async missing({ name }: { name: string }): Promise<boolean> {
    return !(await this.available({ name }));
  }
}
