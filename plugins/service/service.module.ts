import { accessSync, constants, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { CommandExecutionError, Fn, IConfig, IShell, Module, arg, fnmatch, inject, type ShellResult } from 'brine/plugin';
import { backendVerdict } from './backend';
import { serviceRoot } from './init-scripts';

/** Salt's VALID_UNIT_TYPES. */
const UNIT_TYPES = ['service', 'socket', 'device', 'mount', 'automount', 'swap', 'target', 'path', 'timer'];

/** `nginx` -> `nginx.service`; a name with a unit type keeps it. */
function unitName(name: string): string {
  return UNIT_TYPES.some((t) => name.endsWith(`.${t}`)) ? name : `${name}.service`;
}

/** A unit's name as Salt lists it: services without `.service`, other units in full. */
function listedName(fullname: string): string | null {
  const at = fullname.lastIndexOf('.');
  if (at === -1) return null;
  const type = fullname.slice(at + 1);
  if (!UNIT_TYPES.includes(type)) return null;
  return type === 'service' ? fullname.slice(0, at) : fullname;
}

const NAME = { name: arg.string({ nonEmpty: true }) };
const ACTION = { name: arg.string({ nonEmpty: true }), no_block: arg.boolean({ default: false }) };
const ROOT = { root: arg.string({ optional: true }) };

interface UnmaskArgs {
  name: string;
  no_block: boolean;
  unmask: boolean;
  unmask_runtime: boolean;
}

/**
 * Salt's `service` for systemd (systemd_service): systemctl for every action, Salt's return
 * values (True, or an error carrying systemctl's stderr). Available where the `init` grain is
 * systemd (backend.ts chooses; OpenRC and sysvinit hosts get their own modules). The functions
 * that work on unit files (enable, disable, is-enabled, mask, list-unit-files) take Salt's `root`;
 * the minion option `service_root` is its default.
 */
@Module('service', { doc: 'Provides the service module for systemd', file: 'systemd_service', available: backendVerdict('systemd') })
export class ServiceModule {
  private readonly defaultRoot: string | undefined;

  constructor(
    @inject(IShell) private readonly shell: IShell,
    @inject(IConfig) config: IConfig,
  ) {
    const root = serviceRoot(config);
    this.defaultRoot = root === '/' ? undefined : root;
  }

  private systemctl(args: string[], root?: string): Promise<ShellResult> {
    const at = root ?? this.defaultRoot;
    return this.shell.run(['systemctl', ...(at ? ['--root', at] : []), ...args], { pythonShell: false });
  }

  /** Salt's _check_unmask: `unmask`/`unmask_runtime` lift those masks before acting. */
  private async checkUnmask({ name, unmask, unmask_runtime }: UnmaskArgs): Promise<void> {
    if (unmask) await this.unmask({ name, runtime: false });
    if (unmask_runtime) await this.unmask({ name, runtime: true });
  }

  /** Verbs that talk to the running systemd (start, is-active, list-units): never under a root. */
  private runtime(args: string[]): Promise<ShellResult> {
    return this.shell.run(['systemctl', ...args], { pythonShell: false });
  }

  /**
   * Salt's _check_for_unit_changes: a unit file changed on disk (systemctl status asks for a
   * daemon-reload), or one in /etc/systemd/system that systemd does not know yet, makes systemd
   * reload its units first, so that a state that rewrote a unit file acts on the new one.
   */
  private async checkForUnitChanges(name: string): Promise<void> {
    const status = await this.runtime(['status', unitName(name), '-n', '0']);
    const out = `${status.stdout}${status.stderr}`.toLowerCase();
    let untracked = false;
    try {
      accessSync(join(this.defaultRoot ?? '/', 'etc/systemd/system', unitName(name)), constants.R_OK);
      // systemd 231 and later: status exits 4 for a unit it does not know.
      untracked = !(status.retcode >= 0 && status.retcode < 4);
    } catch {
      untracked = false;
    }
    if (untracked || out.includes("'systemctl daemon-reload'")) await this.systemctl_reload();
  }

  /** start/stop/restart/reload: True, or systemctl's complaint as the error. */
  private async act(action: string, name: string, noBlock: boolean): Promise<boolean> {
    await this.checkForUnitChanges(name);
    const res = await this.runtime([...(noBlock ? ['--no-block'] : []), action, unitName(name)]);
    if (res.retcode !== 0) throw new CommandExecutionError(res.stderr.trim());
    return true;
  }

  @Fn({
    summary: 'Start the named service',
    examples: ["salt '*' service.start <service name>"],
    args: { ...ACTION, unmask: arg.boolean({ default: false }), unmask_runtime: arg.boolean({ default: false }) },
  })
  async start(args: UnmaskArgs): Promise<boolean> {
    await this.checkUnmask(args);
    return this.act('start', args.name, args.no_block);
  }

  @Fn({ summary: 'Stop the named service', examples: ["salt '*' service.stop <service name>"], args: ACTION })
  stop({ name, no_block }: { name: string; no_block: boolean }): Promise<boolean> {
    return this.act('stop', name, no_block);
  }

  @Fn({
    summary: 'Restart the named service',
    examples: ["salt '*' service.restart <service name>"],
    args: { ...ACTION, unmask: arg.boolean({ default: false }), unmask_runtime: arg.boolean({ default: false }) },
  })
  async restart(args: UnmaskArgs): Promise<boolean> {
    await this.checkUnmask(args);
    return this.act('restart', args.name, args.no_block);
  }

  @Fn({
    summary: 'Reload the named service',
    examples: ["salt '*' service.reload <service name>"],
    args: { ...ACTION, unmask: arg.boolean({ default: false }), unmask_runtime: arg.boolean({ default: false }) },
  })
  async reload(args: UnmaskArgs): Promise<boolean> {
    await this.checkUnmask(args);
    return this.act('reload', args.name, args.no_block);
  }

  @Fn({
    summary: 'Reload the service if it supports it, else restart it',
    examples: ["salt '*' service.force_reload <service name>"],
    args: { ...ACTION, unmask: arg.boolean({ default: false }), unmask_runtime: arg.boolean({ default: false }) },
  })
  async force_reload(args: UnmaskArgs): Promise<boolean> {
    await this.checkUnmask(args);
    return this.act('force-reload', args.name, args.no_block);
  }

  @Fn({
    summary: 'Whether the service is running (systemctl is-active); a glob gives {service: bool}',
    examples: ["salt '*' service.status <service name>", "salt '*' service.status 'ssh*'"],
    args: { name: arg.string({ nonEmpty: true }), sig: arg.string({ optional: true }) },
  })
  async status({ name }: { name: string }): Promise<boolean | Record<string, boolean>> {
    const glob = /\*|\?|\[.+\]/.test(name);
    const services = glob ? (await this.get_all({})).filter((s) => fnmatch(name, s)) : [name];
    const ret: Record<string, boolean> = {};
    for (const s of services) {
      await this.checkForUnitChanges(s);
      ret[s] = (await this.runtime(['is-active', unitName(s)])).retcode === 0;
    }
    return glob ? ret : ret[name];
  }

  @Fn({
    summary: 'Enable the named service to start at boot',
    examples: ["salt '*' service.enable <service name>"],
    args: { ...ACTION, unmask: arg.boolean({ default: false }), unmask_runtime: arg.boolean({ default: false }), ...ROOT },
    kwargs: true,
  })
  async enable({ name, no_block, root }: { name: string; no_block: boolean; root?: string }): Promise<boolean> {
    await this.checkForUnitChanges(name);
    const res = await this.systemctl([...(no_block ? ['--no-block'] : []), 'enable', unitName(name)], root);
    if (res.retcode !== 0) throw new CommandExecutionError(res.stderr.trim());
    return true;
  }

  @Fn({
    summary: 'Disable the named service at boot',
    examples: ["salt '*' service.disable <service name>"],
    args: { ...ACTION, ...ROOT },
    kwargs: true,
  })
  async disable({ name, no_block, root }: { name: string; no_block: boolean; root?: string }): Promise<boolean> {
    await this.checkForUnitChanges(name);
    const res = await this.systemctl([...(no_block ? ['--no-block'] : []), 'disable', unitName(name)], root);
    if (res.retcode !== 0) throw new CommandExecutionError(res.stderr.trim());
    return true;
  }

  @Fn({
    summary: 'Whether the service starts at boot (systemctl is-enabled)',
    examples: ["salt '*' service.enabled <service name>"],
    args: { ...NAME, ...ROOT },
    kwargs: true,
  })
  async enabled({ name, root }: { name: string; root?: string }): Promise<boolean> {
    const res = await this.systemctl(['is-enabled', unitName(name)], root);
    if (res.retcode === 0 && res.stdout.trim() !== 'alias') return true;
    if (res.stdout.trim() === 'alias') {
      const id = (await this.systemctl(['show', unitName(name), '-P', 'Id'], root)).stdout.trim();
      return (await this.systemctl(['is-enabled', id], root)).retcode === 0;
    }
    return false;
  }

  @Fn({
    summary: 'Whether the service does not start at boot',
    examples: ["salt '*' service.disabled <service name>"],
    args: { ...NAME, ...ROOT },
    kwargs: true,
  })
  async disabled({ name, root }: { name: string; root?: string }): Promise<boolean> {
    return !(await this.enabled({ name, root }));
  }

  /** Units of `systemctl list-unit-files` in a state ('enabled', 'disabled'), or all of them. */
  private async unitFiles(root: string | undefined, state?: string): Promise<string[]> {
    const out = (await this.systemctl(['--full', '--no-legend', '--no-pager', 'list-unit-files'], root)).stdout;
    const ret = new Set<string>();
    for (const line of out.split('\n')) {
      const [fullname, unitState] = line.trim().split(/\s+/);
      if (!fullname || !unitState || (state && unitState !== state)) continue;
      const name = listedName(fullname);
      if (name) ret.add(name);
    }
    return [...ret];
  }

  @Fn({ summary: 'Every service and unit systemd knows, sorted', examples: ["salt '*' service.get_all"], args: ROOT })
  async get_all({ root }: { root?: string }): Promise<string[]> {
    const ret = new Set(await this.unitFiles(root));
    if (!root) {
      const out = (await this.runtime(['--all', '--full', '--no-legend', '--no-pager', 'list-units'])).stdout;
      for (const line of out.split('\n')) {
        const name = listedName(
          line
            .replace(/^[●*]\s*/, '')
            .trim()
            .split(/\s+/)[0] ?? '',
        );
        if (name) ret.add(name);
      }
    }
    return [...ret].sort();
  }

  @Fn({ summary: 'The services enabled at boot, sorted', examples: ["salt '*' service.get_enabled"], args: ROOT })
  async get_enabled({ root }: { root?: string }): Promise<string[]> {
    return (await this.unitFiles(root, 'enabled')).sort();
  }

  @Fn({ summary: 'The services disabled at boot, sorted', examples: ["salt '*' service.get_disabled"], args: ROOT })
  async get_disabled({ root }: { root?: string }): Promise<string[]> {
    return (await this.unitFiles(root, 'disabled')).sort();
  }

  @Fn({ summary: 'The services running now, sorted', examples: ["salt '*' service.get_running"] })
  async get_running(): Promise<string[]> {
    const out = (await this.runtime(['--full', '--no-legend', '--no-pager'])).stdout;
    const ret = new Set<string>();
    for (const line of out.split('\n')) {
      const comps = line
        .replace(/^[●*]\s*/, '')
        .trim()
        .split(/\s+/);
      if (comps.length <= 3 || comps[3] !== 'running') continue;
      const name = listedName(comps[0]);
      if (name) ret.add(name);
    }
    return [...ret].sort();
  }

  @Fn({ summary: 'Whether systemd knows the service', examples: ["salt '*' service.available sshd"], args: NAME })
  async available({ name }: { name: string }): Promise<boolean> {
    return (await this.get_all({})).includes(listedName(unitName(name)) ?? name);
  }

  @Fn({
    summary: 'Whether systemd does not know the service (the inverse of service.available)',
    examples: ["salt '*' service.missing sshd"],
    args: NAME,
  })
  async missing({ name }: { name: string }): Promise<boolean> {
    return !(await this.available({ name }));
  }

  @Fn({
    summary: 'Whether the service is masked (indefinitely, or until reboot with runtime=True)',
    examples: ["salt '*' service.masked foo", "salt '*' service.masked foo runtime=True"],
    args: { ...NAME, runtime: arg.boolean({ default: false }), ...ROOT },
  })
  masked({ name, runtime, root }: { name: string; runtime: boolean; root?: string }): boolean {
    // Salt reads the mask link itself: /etc (or /run) /systemd/system/<unit> -> /dev/null.
    const base = join(root ?? this.defaultRoot ?? '/', runtime ? 'run' : 'etc', 'systemd/system', unitName(name));
    try {
      return readlinkSync(base) === '/dev/null';
    } catch {
      return false;
    }
  }

  @Fn({
    summary: 'Mask the service (indefinitely, or until reboot with runtime=True)',
    examples: ["salt '*' service.mask foo", "salt '*' service.mask foo runtime=True"],
    args: { ...NAME, runtime: arg.boolean({ default: false }), ...ROOT },
  })
  async mask({ name, runtime, root }: { name: string; runtime: boolean; root?: string }): Promise<boolean> {
    await this.checkForUnitChanges(name);
    const res = await this.systemctl(['mask', ...(runtime ? ['--runtime'] : []), unitName(name)], root);
    if (res.retcode !== 0) throw new CommandExecutionError(`Failed to mask service '${name}'`, { info: `${res.stdout}${res.stderr}` });
    return true;
  }

  @Fn({
    summary: 'Unmask the service (the indefinite mask, or the runtime one with runtime=True)',
    examples: ["salt '*' service.unmask foo", "salt '*' service.unmask foo runtime=True"],
    args: { ...NAME, runtime: arg.boolean({ default: false }), ...ROOT },
  })
  async unmask({ name, runtime, root }: { name: string; runtime: boolean; root?: string }): Promise<boolean> {
    await this.checkForUnitChanges(name);
    if (!this.masked({ name, runtime, root })) return true;
    const res = await this.systemctl(['unmask', ...(runtime ? ['--runtime'] : []), unitName(name)], root);
    if (res.retcode !== 0) throw new CommandExecutionError(`Failed to unmask service '${name}'`);
    return true;
  }

  @Fn({ summary: "Reload systemd's unit files (systemctl daemon-reload)", examples: ["salt '*' service.systemctl_reload"] })
  async systemctl_reload(): Promise<boolean> {
    const res = await this.runtime(['--system', 'daemon-reload']);
    if (res.retcode !== 0) throw new CommandExecutionError(`Problem performing systemctl daemon-reload: ${res.stdout}${res.stderr}`);
    return true;
  }
}
