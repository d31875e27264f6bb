import { Fn, IConfig, IShell, ISalt, Module, arg, inject } from 'brine/plugin';
import { backendVerdict } from './backend';
import { InitScriptService, InitScripts, serviceRoot } from './init-scripts';

const NAME = { name: arg.string({ nonEmpty: true }) };
/** `runlevels=default` or `runlevels=[boot,default]`: gentoo_service's runlevel selection. */
const RUNLEVELS = { runlevels: arg.any({ optional: true }) };

type Levels = Record<string, string[]>;

function requested(runlevels: unknown): Set<string> {
  return new Set((Array.isArray(runlevels) ? runlevels : [runlevels]).map(String));
}

/**
 * Salt's `service` for OpenRC (gentoo_service, also Alpine's): init scripts run as
 * `/etc/init.d/<name> <action>`, boot runlevels through `rc-update`. The scripts' directory sits
 * under the minion option `service_root` (default `/`).
 */
@Module('service', {
  file: 'gentoo_service',
  doc: 'Service support for OpenRC (Gentoo, Alpine): /etc/init.d scripts and rc-update',
  available: backendVerdict('openrc'),
})
export class OpenrcServiceModule extends InitScriptService {
  constructor(
    @inject(IShell) private readonly shell: IShell,
    @inject(IConfig) config: IConfig,
    @inject(ISalt) salt: ISalt,
  ) {
    super(new InitScripts(shell, serviceRoot(config)), salt);
  }

  protected async serviceNames(): Promise<string[]> {
    return Object.keys(await this.get_all());
  }

  /** `rc-update -v show`: every service with its runlevels (none: installed but disabled). */
  private async serviceList(): Promise<{ enabled: Levels; disabled: string[] }> {
    const out = (await this.shell.run(['rc-update', '-v', 'show'], { pythonShell: false })).stdout;
    const enabled: Levels = {};
    const disabled = new Set<string>();
    for (const line of out.split('\n')) {
      if (!line.includes('|')) continue;
      const [service, levels] = line.split('|').map((s) => s.trim());
      if (levels) enabled[service] = levels.split(/\s+/).sort();
      else disabled.add(service);
    }
    return { enabled, disabled: [...disabled].sort() };
  }

  private async rcUpdate(command: 'add' | 'delete', name: string, levels: Iterable<string> = []): Promise<boolean> {
    const res = await this.shell.run(['rc-update', command, name, ...[...levels].sort()], { pythonShell: false });
    return res.retcode === 0;
  }

  @Fn({
    summary: "Forget a crashed service's state (the init script's zap)",
    examples: ["salt '*' service.zap <service name>"],
    args: NAME,
  })
  zap({ name }: { name: string }): Promise<boolean> {
    return this.scripts.ok(name, 'zap');
  }

  @Fn({
    summary: 'Enable the named service to start at boot (rc-update add), in the default runlevel or in `runlevels`',
    examples: ["salt '*' service.enable <service name>", "salt '*' service.enable <service name> runlevels='[boot,default]'"],
    args: { ...NAME, ...RUNLEVELS },
    kwargs: true,
  })
  async enable({ name, runlevels }: { name: string; runlevels?: unknown }): Promise<boolean> {
    if (runlevels === undefined || runlevels === null) return this.rcUpdate('add', name);
    const wanted = requested(runlevels);
    const current = new Set((await this.get_enabled())[name] ?? []);
    const add = [...wanted].filter((l) => !current.has(l));
    const remove = [...current].filter((l) => !wanted.has(l));
    if (remove.length && !(await this.rcUpdate('delete', name, remove))) return false;
    if (add.length && !(await this.rcUpdate('add', name, add))) return false;
    return true;
  }

  @Fn({
    summary: 'Disable the named service at boot (rc-update delete), in every runlevel or in `runlevels`',
    examples: ["salt '*' service.disable <service name>", "salt '*' service.disable <service name> runlevels=default"],
    args: { ...NAME, ...RUNLEVELS },
    kwargs: true,
  })
  async disable({ name, runlevels }: { name: string; runlevels?: unknown }): Promise<boolean> {
    let levels: string[] = [];
    if (runlevels !== undefined && runlevels !== null) {
      const current = (await this.get_enabled())[name] ?? [];
      levels = current.filter((l) => requested(runlevels).has(l));
      if (levels.length === 0) return true;
    }
    return this.rcUpdate('delete', name, levels);
  }

  @Fn({
    summary: 'Whether the named service starts at boot (in every one of `runlevels`, when given)',
    examples: ["salt '*' service.enabled <service name>", "salt '*' service.enabled <service name> runlevels=default"],
    args: { ...NAME, ...RUNLEVELS },
    kwargs: true,
  })
  async enabled({ name, runlevels }: { name: string; runlevels?: unknown }): Promise<boolean> {
    const levels = (await this.get_enabled())[name];
    if (!levels) return false;
    if (runlevels === undefined || runlevels === null) return true;
    return [...requested(runlevels)].every((l) => levels.includes(l));
  }

  @Fn({ summary: 'Whether the named service is in no runlevel', examples: ["salt '*' service.disabled <service name>"], args: NAME })
  async disabled({ name }: { name: string }): Promise<boolean> {
    return (await this.get_disabled()).includes(name);
  }

  @Fn({ summary: 'The services enabled on boot, with their runlevels', examples: ["salt '*' service.get_enabled"] })
  async get_enabled(): Promise<Levels> {
    return (await this.serviceList()).enabled;
  }

  @Fn({ summary: 'The services installed but in no runlevel, sorted', examples: ["salt '*' service.get_disabled"] })
  async get_disabled(): Promise<string[]> {
    return (await this.serviceList()).disabled;
  }

  @Fn({ summary: 'Every service with its runlevels (an empty list: in none)', examples: ["salt '*' service.get_all"] })
  async get_all(): Promise<Levels> {
    const { enabled, disabled } = await this.serviceList();
    return { ...enabled, ...Object.fromEntries(disabled.map((s) => [s, []])) };
  }

  @Fn({ summary: 'Whether OpenRC knows the service', examples: ["salt '*' service.available sshd"], args: NAME })
  async available({ name }: { name: string }): Promise<boolean> {
    const { enabled, disabled } = await this.serviceList();
    return Object.hasOwn(enabled, name) || disabled.includes(name);
  }

  @Fn({
    summary: 'Whether OpenRC does not know the service (the inverse of service.available)',
    examples: ["salt '*' service.missing sshd"],
    args: NAME,
  })
  async missing({ name }: { name: string }): Promise<boolean> {
    return !(await this.available({ name }));
  }
}
